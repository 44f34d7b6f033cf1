import { UnapplicableEventError } from '@chat/contracts';
import type { EventEnvelope, KnownEvent } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import type { KafkaMessage } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { BatchProcessor } from './batchProcessor.js';
import type { BatchHandler } from './batchProcessor.js';
import type { RecordHeaders, RecordSelector } from './recordSelector.js';

const logger = pino({ level: 'silent' });

function messageOf(offset: number, value: unknown, headers: Record<string, string> = {}, timestamp = '0'): KafkaMessage {
  return {
    key: null,
    value: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
    offset: String(offset),
    timestamp,
    attributes: 0,
    headers,
  };
}

/** The uid of a test event (every event here is about a user). */
const uidOf = (event: KnownEvent): string => (event.data as { uid: string }).uid;

const userCreated = (uid: string, version = 1): EventEnvelope =>
  testEnvelope('UserCreated', `user:app1:${uid}`, version, { uid, name: uid, role: 'default', tags: [], createdAt: 1 });

/**
 * One partition as kafkajs serves it: a fetch hands the messages from the last resolved offset on, a
 * paused partition is not fetched until resumed. Timers run when the test says so.
 */
class FakePartition {
  resolved = -1;
  paused = false;
  readonly deadLettered: Array<{ offset: string; reason: string }> = [];
  private readonly timers: Array<{ run: () => void; ms: number }> = [];
  readonly processor: BatchProcessor;

  constructor(
    private readonly log: KafkaMessage[],
    handler: BatchHandler,
    maxEventsPerCall = 1_000,
    select?: RecordSelector,
  ) {
    this.processor = new BatchProcessor({
      handler,
      logger,
      maxEventsPerCall,
      ...(select ? { select } : {}),
      backoffMs: (attempt) => attempt * 100,
      schedule: (run, ms) => {
        const timer = { run, ms };
        this.timers.push(timer);
        return () => this.timers.splice(this.timers.indexOf(timer), 1);
      },
      deadLetter: (_topic, _partition, message, reason) => {
        this.deadLettered.push({ offset: message.offset, reason });
        return Promise.resolve();
      },
    });
  }

  /** Fetches and processes until every message is resolved, firing backoff timers when paused. */
  async drain(maxFetches = 50): Promise<number[]> {
    const delays: number[] = [];
    for (let fetch = 0; fetch < maxFetches && this.resolved < this.log.length - 1; fetch++) {
      if (this.paused) {
        const timer = this.timers.shift();
        if (!timer) throw new Error('paused with no resume scheduled');
        delays.push(timer.ms);
        timer.run();
        continue;
      }
      await this.processor.process({
        topic: 't',
        partition: 0,
        messages: this.log.slice(this.resolved + 1),
        resolveOffset: (offset) => {
          this.resolved = Number(offset);
        },
        heartbeat: () => Promise.resolve(),
        isActive: () => true,
        pause: () => {
          this.paused = true;
          return () => {
            this.paused = false;
          };
        },
      });
    }
    return delays;
  }
}

describe('BatchProcessor', () => {
  it('hands valid events to the handler in partition order, a bounded run at a time, and resolves them', async () => {
    const events = ['a', 'b', 'c', 'd', 'e'].map((uid) => userCreated(uid));
    const calls: string[][] = [];
    const partition = new FakePartition(
      events.map((event, index) => messageOf(index, event)),
      (batch) => {
        calls.push(batch.map((event) => uidOf(event)));
        return Promise.resolve();
      },
      2,
    );
    await partition.drain();
    expect(calls).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(partition.resolved).toBe(4);
  });

  it('tells the handler whether a run may have been handed before: below the first fetch\'s high watermark, again after a failure, afresh after a join', async () => {
    const seen: Array<[string[], boolean]> = [];
    let failNext = false;
    const processor = new BatchProcessor({
      handler: (batch, run) => {
        seen.push([batch.map((event) => uidOf(event)), run.mayRepeat]);
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('store down'));
        }
        return Promise.resolve();
      },
      logger,
      maxEventsPerCall: 2,
      schedule: () => () => undefined,
      deadLetter: () => Promise.resolve(),
    });
    const log = ['a', 'b', 'c', 'd', 'e', 'f'].map((uid, index) => messageOf(index, userCreated(uid)));
    const fetch = (from: number, to: number, highWatermark: string) =>
      processor.process({ topic: 't', partition: 0, messages: log.slice(from, to), highWatermark, resolveOffset: () => undefined, heartbeat: () => Promise.resolve(), isActive: () => true, pause: () => () => undefined });
    await fetch(0, 4, '2'); // the previous owner may have had offsets 0 and 1
    failNext = true;
    await fetch(4, 6, '6'); // fails, fetched again
    await fetch(4, 6, '6');
    processor.joined();
    await fetch(4, 6, '6');
    expect(seen).toEqual([
      [['a', 'b'], true],
      [['c', 'd'], false],
      [['e', 'f'], false],
      [['e', 'f'], true],
      [['e', 'f'], true],
    ]);
  });

  it('dead-letters only what can never be applied: not an envelope, an unknown type, an invalid payload', async () => {
    const applied: string[] = [];
    const partition = new FakePartition(
      [
        messageOf(0, userCreated('a')),
        messageOf(1, 'not json'),
        messageOf(2, testEnvelope('SomethingNobodyKnows', 'x:app1:1', 1, {})),
        messageOf(3, testEnvelope('UserCreated', 'user:app1:b', 1, { uid: 42 })),
        messageOf(4, userCreated('c')),
      ],
      (batch) => {
        applied.push(...batch.map((event) => uidOf(event)));
        return Promise.resolve();
      },
    );
    await partition.drain();
    expect(applied).toEqual(['a', 'c']);
    expect(partition.deadLettered.map((entry) => entry.offset)).toEqual(['1', '2', '3']);
    expect(partition.processor.counters.deadLettered).toBe(3);
  });

  it('a store outage pauses the partition and retries with growing backoff until it succeeds, dead-lettering nothing', async () => {
    let outageCallsLeft = 4;
    const applied: string[] = [];
    const events = ['a', 'b', 'c'].map((uid) => userCreated(uid));
    const partition = new FakePartition(
      events.map((event, index) => messageOf(index, event)),
      (batch) => {
        if (outageCallsLeft > 0) {
          outageCallsLeft -= 1;
          return Promise.reject(new Error('MongoServerSelectionError: connect ECONNREFUSED'));
        }
        applied.push(...batch.map((event) => uidOf(event)));
        return Promise.resolve();
      },
    );
    const delays = await partition.drain();
    expect(delays).toEqual([100, 200, 300, 400]);
    expect(applied).toEqual(['a', 'b', 'c']);
    expect(partition.deadLettered).toEqual([]);
    expect(partition.processor.counters.retriedFailures).toBe(4);
    expect(partition.resolved).toBe(2);
  });

  it('an outage keeps failing past any attempt count without the event ever being dead-lettered', async () => {
    let calls = 0;
    const partition = new FakePartition([messageOf(0, userCreated('a'))], () => {
      calls += 1;
      return Promise.reject(new Error('timeout'));
    });
    await partition.drain(40);
    expect(calls).toBeGreaterThan(10);
    expect(partition.deadLettered).toEqual([]);
    expect(partition.resolved).toBe(-1);
  });

  it('an event the handler reports as unapplicable is dead-lettered and the rest of the run applied', async () => {
    const events = ['a', 'poison', 'c'].map((uid) => userCreated(uid));
    const seen: string[][] = [];
    const partition = new FakePartition(
      events.map((event, index) => messageOf(index, event)),
      (batch: readonly KnownEvent[]) => {
        seen.push(batch.map((event) => uidOf(event)));
        const poison = batch.find((event) => uidOf(event) === 'poison');
        return poison ? Promise.reject(new UnapplicableEventError(poison.id, 'evolve threw')) : Promise.resolve();
      },
    );
    await partition.drain();
    expect(seen).toEqual([['a', 'poison', 'c'], ['a', 'c']]);
    expect(partition.deadLettered.map((entry) => entry.offset)).toEqual(['1']);
    expect(partition.resolved).toBe(2);
  });

  describe('with a record selector', () => {
    /** A record of `type` for `appId`, as the producer heads it; its value is what the test makes it. */
    const headed = (offset: number, value: unknown, type: string, appId = 'app1') => messageOf(offset, value, { type, appId }, String(1_000 + offset));
    const keepType =
      (type: string): RecordSelector =>
      (records) =>
        records.map((r) => r.type === undefined || r.type === type);

    it('skips records from their headers alone: never decoded, never dead-lettered, their offsets resolved', async () => {
      const applied: string[] = [];
      const partition = new FakePartition(
        [
          headed(0, 'not json, but nobody reads it', 'Skipped'),
          headed(1, userCreated('a'), 'UserCreated'),
          headed(2, 'not json either', 'Skipped'),
          headed(3, userCreated('b'), 'UserCreated'),
          headed(4, '{"also": "unread"}', 'Skipped'),
        ],
        (batch) => {
          applied.push(...batch.map((event) => uidOf(event)));
          return Promise.resolve();
        },
        1_000,
        keepType('UserCreated'),
      );
      await partition.drain();
      expect(applied).toEqual(['a', 'b']);
      expect(partition.deadLettered).toEqual([]);
      expect(partition.resolved).toBe(4);
      expect(partition.processor.counters.skipped).toBe(3);
    });

    it('a batch it skips entirely resolves to its end without calling the handler', async () => {
      let calls = 0;
      const partition = new FakePartition(
        [headed(0, userCreated('a'), 'Other'), headed(1, userCreated('b'), 'Other')],
        () => {
          calls += 1;
          return Promise.resolve();
        },
        1_000,
        keepType('UserCreated'),
      );
      await partition.drain();
      expect(calls).toBe(0);
      expect(partition.resolved).toBe(1);
    });

    it('sees each record\'s topic, type, appId, key id and timestamp; a record without headers is offered as unjudgeable', async () => {
      const offered: RecordHeaders[] = [];
      const partition = new FakePartition(
        [messageOf(0, userCreated('a'), { type: 'UserCreated', appId: 'app7', keyId: '0123456789abcdef' }, '1000'), messageOf(1, userCreated('b'))],
        () => Promise.resolve(),
        1_000,
        (records) => {
          offered.push(...records);
          return records.map(() => true);
        },
      );
      const before = Date.now();
      await partition.drain();
      expect(offered[0]).toEqual({ topic: 't', type: 'UserCreated', appId: 'app7', keyId: '0123456789abcdef', timestamp: 1_000 });
      expect(offered[1]).toMatchObject({ topic: 't', type: undefined, appId: undefined, keyId: undefined });
      // No timestamp: judged as of now, which is after it was sent.
      expect(offered[1]!.timestamp).toBeGreaterThanOrEqual(before);
    });

    it('a skipped record before a kept one is not resolved while the kept one fails to apply', async () => {
      let failing = true;
      const partition = new FakePartition(
        [headed(0, userCreated('x'), 'Other'), headed(1, userCreated('a'), 'UserCreated'), headed(2, userCreated('y'), 'Other')],
        () => (failing ? Promise.reject(new Error('store down')) : Promise.resolve()),
        1_000,
        keepType('UserCreated'),
      );
      await partition.processor.process({
        topic: 't',
        partition: 0,
        messages: [headed(0, userCreated('x'), 'Other'), headed(1, userCreated('a'), 'UserCreated'), headed(2, userCreated('y'), 'Other')],
        resolveOffset: (offset) => (partition.resolved = Number(offset)),
        heartbeat: () => Promise.resolve(),
        isActive: () => true,
        pause: () => () => undefined,
      });
      expect(partition.resolved).toBe(-1);
      failing = false;
      await partition.drain();
      expect(partition.resolved).toBe(2);
    });

    it('a selector that fails is an outage: the partition pauses and retries, nothing resolved or dead-lettered', async () => {
      let failuresLeft = 2;
      const applied: string[] = [];
      const partition = new FakePartition(
        [headed(0, userCreated('a'), 'UserCreated'), headed(1, userCreated('b'), 'Other')],
        (batch) => {
          applied.push(...batch.map((event) => uidOf(event)));
          return Promise.resolve();
        },
        1_000,
        async (records) => {
          if (failuresLeft > 0) {
            failuresLeft -= 1;
            throw new Error('configuration unreadable');
          }
          return records.map((r) => r.type === 'UserCreated');
        },
      );
      const delays = await partition.drain();
      expect(delays).toEqual([100, 200]);
      expect(applied).toEqual(['a']);
      expect(partition.deadLettered).toEqual([]);
      expect(partition.resolved).toBe(1);
    });
  });
});
