import { EventEmitter } from 'node:events';
import type { Consumer } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { loneMemberConsumerConfig } from './consumer.js';
import { runFromOffsets } from './runFromOffsets.js';

const CRASH = 'consumer.crash';

/**
 * The part of a kafkajs consumer `runFromOffsets` uses, as kafkajs behaves when a first join fails:
 * `run()` resolves after its runner crashed, the group is gone (a seek throws), and the crash is
 * emitted once the consumer has disconnected.
 */
function consumerDouble(options: { crashWhileRunning?: boolean } = {}) {
  const emitter = new EventEmitter();
  const seeks: Array<{ topic: string; partition: number; offset: string }> = [];
  let group = false;
  let disconnects = 0;
  const consumer = {
    events: { CRASH },
    on: (event: string, listener: (payload: unknown) => void) => emitter.on(event, listener),
    connect: () => Promise.resolve(),
    subscribe: () => Promise.resolve(),
    run: () => {
      group = true;
      if (options.crashWhileRunning) {
        group = false;
        emitter.emit(CRASH, { payload: { error: new Error('join failed'), restart: false } });
      }
      return Promise.resolve();
    },
    seek: (seek: { topic: string; partition: number; offset: string }) => {
      if (!group) throw new Error('Consumer group was not initialized, consumer#run must be called first');
      seeks.push(seek);
    },
    disconnect: () => {
      disconnects += 1;
      group = false;
      return Promise.resolve();
    },
  };
  return {
    consumer: consumer as unknown as Consumer,
    seeks,
    disconnects: () => disconnects,
    crash: (error: Error) => emitter.emit(CRASH, { payload: { error, restart: false } }),
  };
}

const starts = [
  { topic: 't', partition: 0, offset: 7 },
  { topic: 't', partition: 1, offset: '12' },
];

describe('runFromOffsets', () => {
  it('seeks every partition to its start, and hands a crash after the launch to the supervisor', async () => {
    const double = consumerDouble();
    const crashes: unknown[] = [];
    const seen: unknown[] = [];
    const running = await runFromOffsets(double.consumer, {
      topics: ['t'],
      starts: () => Promise.resolve(starts),
      onStart: (s) => seen.push(...s),
      run: { eachBatch: () => Promise.resolve() },
      logCrash: () => undefined,
      crashed: (error) => crashes.push(error),
    });
    expect(seen).toEqual(starts);
    expect(double.seeks).toEqual([
      { topic: 't', partition: 0, offset: '7' },
      { topic: 't', partition: 1, offset: '12' },
    ]);
    double.crash(new Error('broker gone'));
    expect(crashes).toEqual([new Error('broker gone')]);
    await running.stop();
    expect(double.disconnects()).toBe(1);
  });

  it('fails the launch when the consumer crashed while it started, without reporting the crash as well', async () => {
    const double = consumerDouble({ crashWhileRunning: true });
    const crashes: unknown[] = [];
    const logged: unknown[] = [];
    await expect(
      runFromOffsets(double.consumer, {
        topics: ['t'],
        starts: () => Promise.resolve(starts),
        run: { eachBatch: () => Promise.resolve() },
        logCrash: (error) => logged.push(error),
        crashed: (error) => crashes.push(error),
      }),
    ).rejects.toThrow('join failed');
    expect(crashes).toEqual([]);
    expect(logged).toHaveLength(1);
    expect(double.seeks).toEqual([]);
    expect(double.disconnects()).toBe(1);
  });

  it('runs on a configuration with which kafkajs never restarts the consumer by itself', async () => {
    const { retry } = loneMemberConsumerConfig('g');
    await expect(retry?.restartOnFailure?.(new Error('retriable'))).resolves.toBe(false);
  });
});
