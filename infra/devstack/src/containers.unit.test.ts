import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { containerDefinitions, containerEngineAnswers, infraRuntimeFrom, startsContainers } from './containers.js';

/** The broker settings of the local Kafka, as `KAFKA_…` environment names of Confluent's image. */
function localBrokerSettings(): Map<string, string> {
  const text = readFileSync(new URL('../../kafka/server.properties', import.meta.url), 'utf8');
  const settings = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([a-z.]+)=(.*)$/.exec(line.trim());
    if (match) settings.set(`KAFKA_${match[1]!.replaceAll('.', '_').toUpperCase()}`, match[2]!);
  }
  return settings;
}

describe('INFRA_RUNTIME', () => {
  it('defaults to local processes and refuses unknown values', () => {
    expect(infraRuntimeFrom({})).toBe('processes');
    expect(infraRuntimeFrom({ INFRA_RUNTIME: '' })).toBe('processes');
    expect(infraRuntimeFrom({ INFRA_RUNTIME: 'auto' })).toBe('auto');
    expect(() => infraRuntimeFrom({ INFRA_RUNTIME: 'docker' })).toThrow(/INFRA_RUNTIME must be one of processes, containers, auto/);
  });

  it('starts containers when asked, in auto mode only with an engine, and says so when asked without one', () => {
    expect(startsContainers('processes', true)).toBe(false);
    expect(startsContainers('auto', true)).toBe(true);
    expect(startsContainers('auto', false)).toBe(false);
    expect(startsContainers('containers', true)).toBe(true);
    expect(() => startsContainers('containers', false)).toThrow(/no container engine answers/);
  });
});

describe('container definitions', () => {
  it('run Kafka, the real MongoDB and Redis, each image overridable', () => {
    const defaults = containerDefinitions({});
    expect(defaults.kafka.image).toMatch(/^confluentinc\/cp-kafka:7\.\d+\.\d+$/);
    expect(defaults.ferretdb.image).toMatch(/^mongo:\d/);
    expect(defaults.redis.image).toMatch(/^redis:\d/);
    const chosen = containerDefinitions({ KAFKA_IMAGE: 'k:1', MONGO_IMAGE: 'm:2', REDIS_IMAGE: 'r:3' });
    expect([chosen.kafka.image, chosen.ferretdb.image, chosen.redis.image]).toEqual(['k:1', 'm:2', 'r:3']);
  });

  it('give the Kafka container the broker settings the local broker has and the services depend on', () => {
    const local = localBrokerSettings();
    const { environment } = containerDefinitions({}).kafka;
    for (const [name, value] of Object.entries(environment)) expect([name, local.get(name)]).toEqual([name, value]);
    expect(environment).toHaveProperty('KAFKA_AUTO_CREATE_TOPICS_ENABLE', 'true');
    expect(environment).toHaveProperty('KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS', '0');
  });
});

describe('the container engine check', () => {
  it('loads the installed testcontainers on this Node (a version that needs a newer Node throws at import)', async () => {
    const testcontainers = await import('testcontainers');
    expect(typeof testcontainers.getContainerRuntimeClient).toBe('function');
    // Whatever the engine answers, the check itself answers instead of throwing.
    expect(typeof (await containerEngineAnswers())).toBe('boolean');
  });

  it('reports a testcontainers that cannot be loaded as that, not as a missing engine', async () => {
    const broken = () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'bind')"));
    await expect(containerEngineAnswers(broken)).rejects.toThrow(/testcontainers cannot be loaded on Node \d+.*reading 'bind'/);
  });

  it('answers no when the engine does not answer, yes when it does', async () => {
    const noEngine = () => Promise.resolve({ getContainerRuntimeClient: () => Promise.reject(new Error('Could not find a working container runtime strategy')) });
    expect(await containerEngineAnswers(noEngine)).toBe(false);
    const engine = () => Promise.resolve({ getContainerRuntimeClient: () => Promise.resolve({} as never) });
    expect(await containerEngineAnswers(engine)).toBe(true);
  });
});
