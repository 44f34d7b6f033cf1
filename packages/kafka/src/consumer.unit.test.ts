import type { ConsumerConfig, Kafka } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { EventConsumer, IDLE_FETCH_WAIT_MS, LONE_MEMBER_HEARTBEAT_MS, loneMemberConsumerConfig } from './consumer.js';
import type { ConsumerGather } from './consumer.js';
import { EventWatch } from './eventWatch.js';

/** A Kafka client that records the consumer configurations asked of it and does nothing else. */
function recordingKafka(configs: ConsumerConfig[]): Kafka {
  const idle = () => Promise.resolve();
  const consumer = {
    events: { CRASH: 'crash', GROUP_JOIN: 'join', STOP: 'stop', DISCONNECT: 'disconnect', REBALANCING: 'rebalancing' },
    on: () => undefined,
    connect: idle,
    subscribe: idle,
    run: idle,
    disconnect: idle,
    commitOffsets: idle,
  };
  return {
    consumer: (config: ConsumerConfig) => {
      configs.push(config);
      return consumer;
    },
    producer: () => ({ connect: idle, disconnect: idle, send: idle }),
  } as unknown as Kafka;
}

async function configOf(gather?: ConsumerGather | (() => ConsumerGather | null)): Promise<ConsumerConfig> {
  const configs: ConsumerConfig[] = [];
  const consumer = new EventConsumer(recordingKafka(configs), {
    groupId: 'g',
    topics: ['t'],
    logger: pino({ level: 'silent' }),
    handler: () => Promise.resolve(),
    ...(gather ? { gather } : {}),
  });
  await consumer.start();
  await consumer.stop();
  expect(configs).toHaveLength(1);
  return configs[0]!;
}

// ADR 0083: a gathering group waits for fuller fetches only while busy; its idle fetch is anyone's.
describe('EventConsumer fetch settings', () => {
  it('gathers only in the fetch after one that returned records; idle fetches answer at the first record', async () => {
    const config = await configOf({ minBytes: 4096, maxWaitMs: 40 });
    expect(config.busyFetch).toEqual({ minBytes: 4096, maxWaitTimeInMs: 40 });
    expect(config.maxWaitTimeInMs).toBe(IDLE_FETCH_WAIT_MS);
    expect(config.minBytes).toBeUndefined();
  });

  it('asks a gather given as a function anew at each busy fetch (ADR 0095)', async () => {
    let now: ConsumerGather | null = { minBytes: 4096, maxWaitMs: 40 };
    const config = await configOf(() => now);
    expect({ ...config.busyFetch }).toEqual({ minBytes: 4096, maxWaitTimeInMs: 40 });
    now = null;
    expect({ ...config.busyFetch }).toEqual({ minBytes: 1, maxWaitTimeInMs: IDLE_FETCH_WAIT_MS });
  });

  // ADR 0100: idle, a fetch (and so a heartbeat) every 3 s; three of them still fit in the session.
  it('holds an idle fetch 3 s, leaving three heartbeats within the session', async () => {
    const config = await configOf();
    expect(config.maxWaitTimeInMs).toBe(3_000);
    expect(config.sessionTimeout! / config.maxWaitTimeInMs!).toBeGreaterThanOrEqual(3);
  });

  it('does not gather without the option', async () => {
    const config = await configOf();
    expect(config.busyFetch).toBeUndefined();
    expect(config.maxWaitTimeInMs).toBe(IDLE_FETCH_WAIT_MS);
  });
});

// ADR 0087: a watch's or a broadcast consumer's group has one member, so its heartbeats only keep it alive.
describe('a group of one member', () => {
  it('heartbeats every 5 s within a 30 s session, not every second as a shared group does', async () => {
    const lone = loneMemberConsumerConfig('w');
    expect(lone).toMatchObject({ groupId: 'w', sessionTimeout: 30_000, heartbeatInterval: 5_000, maxWaitTimeInMs: 5_000 });
    expect(lone.sessionTimeout! / LONE_MEMBER_HEARTBEAT_MS).toBeGreaterThanOrEqual(6);
    expect((await configOf()).heartbeatInterval).toBe(1_000);
  });

  // ADR 0100: idle, one fetch per heartbeat instead of five; a shared group keeps its 1 s (rebalances).
  it('holds an idle fetch as long as its heartbeat interval, longer than a shared group', async () => {
    expect(loneMemberConsumerConfig('w').maxWaitTimeInMs).toBe(LONE_MEMBER_HEARTBEAT_MS);
    expect((await configOf()).maxWaitTimeInMs).toBe(IDLE_FETCH_WAIT_MS);
    expect(LONE_MEMBER_HEARTBEAT_MS).toBeGreaterThan(IDLE_FETCH_WAIT_MS);
  });

  it('is what an event watch asks kafkajs for', async () => {
    const configs: ConsumerConfig[] = [];
    const kafka = recordingKafka(configs);
    const idle = () => Promise.resolve();
    (kafka as unknown as { admin: () => object }).admin = () => ({ connect: idle, disconnect: idle, fetchOffsets: () => Promise.resolve([]) });
    const watch = new EventWatch(kafka, { purpose: 'p', topics: ['t'], startFromGroup: 'g', onEvents: () => undefined, logger: pino({ level: 'silent' }) });
    await watch.start();
    await watch.stop();
    expect(configs.map((c) => [c.heartbeatInterval, c.sessionTimeout])).toEqual([[LONE_MEMBER_HEARTBEAT_MS, 30_000]]);
  });
});
