import { describe, expect, it } from 'vitest';
import { BROKER_HEAP_OPTS, BROKER_JVM_PERFORMANCE_OPTS, brokerJvmFlags } from './brokerJvm.js';

describe("the broker's JVM flags", () => {
  it("are the devstack's heap and performance groups when the environment gives neither", () => {
    expect(brokerJvmFlags({})).toEqual([...BROKER_HEAP_OPTS, ...BROKER_JVM_PERFORMANCE_OPTS]);
    expect(brokerJvmFlags({ KAFKA_HEAP_OPTS: ' ', KAFKA_JVM_PERFORMANCE_OPTS: '' })).toEqual([...BROKER_HEAP_OPTS, ...BROKER_JVM_PERFORMANCE_OPTS]);
  });

  it("take each group from Kafka's launcher's variable when it is set, the other group staying the devstack's", () => {
    expect(brokerJvmFlags({ KAFKA_HEAP_OPTS: '-Xms1g  -Xmx1g' })).toEqual(['-Xms1g', '-Xmx1g', ...BROKER_JVM_PERFORMANCE_OPTS]);
    expect(brokerJvmFlags({ KAFKA_JVM_PERFORMANCE_OPTS: '-XX:+UseZGC -XX:TieredStopAtLevel=1' })).toEqual([...BROKER_HEAP_OPTS, '-XX:+UseZGC', '-XX:TieredStopAtLevel=1']);
  });
});
