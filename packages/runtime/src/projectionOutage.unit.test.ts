import type { EventOf } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { BatchProcessor } from '@chat/kafka';
import { InMemoryDocumentStore, ProjectionRuntime } from '@chat/mongo';
import type { DocumentStore, GuardedWrite, Projection, StoredRecord } from '@chat/mongo';
import type { KafkaMessage } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';

// The consumer and the projection runtime together, as a service wires them: the store goes away for
// a while (every call throws, as an unreachable FerretDB does) and comes back. Nothing is
// dead-lettered, nothing is lost, nothing is applied twice.

/** A store that is unreachable while `down` is true. */
class FlakyStore implements DocumentStore {
  down = true;
  failedCalls = 0;
  constructor(readonly inner = new InMemoryDocumentStore()) {}

  private reach(): void {
    if (this.down) {
      this.failedCalls += 1;
      throw new Error('MongoServerSelectionError: connect ECONNREFUSED 127.0.0.1:27017');
    }
  }
  findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    this.reach();
    return this.inner.findMany(ids);
  }
  insert(documents: readonly StoredRecord[]): Promise<string[]> {
    this.reach();
    return this.inner.insert(documents);
  }
  writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    this.reach();
    return this.inner.writeGuarded(writes);
  }
}

type Created = EventOf<'UserCreated'>;
const names: Projection<{ name: string; count: number }, Created> = {
  name: 'names',
  eventTypes: ['UserCreated'],
  documentIds: (event) => [event.data.uid],
  evolve: (doc, event) => ({ name: event.data.name, count: (doc?.count ?? 0) + 1 }),
};

describe('a store outage under the consumer', () => {
  it('pauses and retries the partition until the store is back; no event is dead-lettered or applied twice', async () => {
    const store = new FlakyStore();
    const runtime = new ProjectionRuntime(names, store);
    const deadLettered: string[] = [];
    const timers: Array<() => void> = [];
    const processor = new BatchProcessor({
      handler: (events) => runtime.apply(events),
      logger: pino({ level: 'silent' }),
      backoffMs: () => 1,
      schedule: (run) => {
        timers.push(run);
        return () => undefined;
      },
      deadLetter: (_topic, _partition, message) => {
        deadLettered.push(message.offset);
        return Promise.resolve();
      },
    });
    const log: KafkaMessage[] = ['ann', 'bob', 'cy'].map(
      (uid, offset) =>
        ({
          key: null,
          offset: String(offset),
          timestamp: '0',
          attributes: 0,
          headers: {},
          value: Buffer.from(
            JSON.stringify(testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid.toUpperCase(), role: 'default', tags: [], createdAt: 1 })),
          ),
        }),
    );
    let resolved = -1;
    let paused = false;
    for (let fetch = 0; resolved < log.length - 1 && fetch < 20; fetch++) {
      if (fetch === 6) store.down = false;
      if (paused) {
        paused = false;
        timers.shift()?.();
      }
      await processor.process({
        topic: 'chat.users.events',
        partition: 0,
        messages: log.slice(resolved + 1),
        resolveOffset: (offset) => {
          resolved = Number(offset);
        },
        heartbeat: () => Promise.resolve(),
        isActive: () => true,
        pause: () => {
          paused = true;
          return () => undefined;
        },
      });
    }
    expect(store.failedCalls).toBeGreaterThan(0);
    expect(processor.counters.retriedFailures).toBeGreaterThan(0);
    expect(deadLettered).toEqual([]);
    expect(resolved).toBe(2);
    expect(store.inner.snapshot()).toEqual(
      new Map([
        ['ann', { name: 'ANN', count: 1 }],
        ['bob', { name: 'BOB', count: 1 }],
        ['cy', { name: 'CY', count: 1 }],
      ]),
    );
  });
});
