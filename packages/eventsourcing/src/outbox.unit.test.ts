import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { CommandRunner } from './commandRunner.js';
import type { Decider, DomainEvent } from './decider.js';
import { InMemoryCommitStore } from './memoryStore.js';
import { testEnvelope } from './testEnvelope.js';
import { Outbox, inStreamOrder, takeBatches } from './outbox.js';
import type { Commit, EventPublisher } from './store.js';

type Added = DomainEvent<'Added', { n: number }>;
const tally: Decider<{ total: number }, { n: number }, Added> = {
  initialState: () => ({ total: 0 }),
  decide: (command) => {
    if (command.n < 0) throw new ApiError('ERR_BAD_REQUEST', 'negative');
    return [{ type: 'Added', data: { n: command.n } }];
  },
  evolve: (state, event) => ({ total: state.total + event.data.n }),
  snapshotVersion: 1,
};
const logger = { warn: () => undefined, info: () => undefined };
const metadata = { appId: 'app', actor: { appId: 'app', keyId: 'k', scope: 'fullAccess' as const }, correlationId: 'c', now: new Date(1_000) };

/** One broker that every replica produces to, and a replica's connection to it that can be cut. */
function broker() {
  const log: EventEnvelope[] = [];
  const connection = (): EventPublisher & { down: boolean } => {
    const link = {
      down: false,
      publish: async (events: readonly EventEnvelope[]) => {
        await Promise.resolve();
        if (link.down) throw new Error('KafkaJSConnectionError: connect ECONNREFUSED');
        log.push(...events);
      },
    };
    return link;
  };
  return { log, connection };
}

function replica(store: InMemoryCommitStore, publisher: EventPublisher) {
  return new CommandRunner({
    store,
    publisher,
    readModels: { apply: () => Promise.resolve() },
    logger,
    outbox: { retry: { baseMs: 5, maxMs: 20 }, releaseIntervalMs: 10 },
  });
}

const versionsOf = (log: readonly EventEnvelope[], streamId: string) => log.filter((e) => e.streamId === streamId).map((e) => e.version);

describe('the outbox with several replicas on one store', () => {
  it('publishes another replica’s unpublished version of a stream before its own next one, and releases only its own journal entries', async () => {
    const store = new InMemoryCommitStore();
    const kafka = broker();
    const toA = kafka.connection();
    const toB = kafka.connection();
    const a = replica(store, toA);
    const b = replica(store, toB);
    await a.start();
    await b.start();

    toA.down = true;
    await a.run({ decider: tally, streamId: 's', command: { n: 1 }, metadata });
    // Replica B continues the stream from the store while A cannot reach Kafka.
    await b.run({ decider: tally, streamId: 's', command: { n: 2 }, metadata });
    await sleep(50);
    expect(versionsOf(kafka.log, 's')).toEqual([1, 2]);
    // B's journal release must not drop A's entry: A has not published it yet.
    expect((await store.unpublished()).flatMap((entry) => entry.commits.map((c) => c.startVersion))).toEqual([1]);

    toA.down = false;
    await a.stop();
    await b.stop();
    // A's own publish arrives late: a duplicate of version 1 after 2, which consumers skip.
    expect(versionsOf(kafka.log, 's')).toEqual([1, 2, 1]);
    expect(await store.unpublished()).toEqual([]);
  });

  it('a restarted replica republishes what any process left in the journal, each stream in version order', async () => {
    const store = new InMemoryCommitStore();
    const kafka = broker();
    const dead = kafka.connection();
    dead.down = true;
    const a = replica(store, dead);
    const b = replica(store, dead);
    await a.start();
    await b.start();
    // Interleaved between the two replicas' position blocks (1… and 1001…): position order is not version order.
    await a.run({ decider: tally, streamId: 's', command: { n: 1 }, metadata });
    await b.run({ decider: tally, streamId: 's', command: { n: 2 }, metadata });
    await a.run({ decider: tally, streamId: 's', command: { n: 3 }, metadata });
    const after = replica(store, kafka.connection());
    await after.start();
    expect(versionsOf(kafka.log, 's')).toEqual([1, 2, 3]);
    expect(await store.unpublished()).toEqual([]);
  });

  it('a recovering replica keeps a live replica’s journal entry whose commits are still being written', async () => {
    const store = new InMemoryCommitStore();
    const kafka = broker();
    const first = replica(store, kafka.connection());
    await first.start();
    await first.run({ decider: tally, streamId: 's', command: { n: 1 }, metadata });
    await first.stop();

    // Replica A has written its batch's journal entry, not yet the commit (version 2), and is slow
    // to reach Kafka afterwards; replica B restarts in between.
    const inFlight: Commit = {
      commitId: 'a-2',
      appId: 'app',
      streamId: 's',
      startVersion: 2,
      endVersion: 2,
      position: 5_000,
      events: [testEnvelope('Added', 's', 2, { n: 2 })],
      committedAt: new Date(1_000),
    };
    store.beginAppend({ position: 5_000, commits: [inFlight] });
    const b = replica(store, kafka.connection());
    await b.start();
    expect(store.appendOne(inFlight)).toBe('appended');

    // B continues the stream on top of A's commit: A's version 2 must reach Kafka first.
    await b.run({ decider: tally, streamId: 's', command: { n: 3 }, metadata });
    await b.stop();
    expect(versionsOf(kafka.log, 's')).toEqual([1, 2, 3]);
  });

  it('a catch-up carrying two of its commits of a stream publishes another replica’s commit between them in between', async () => {
    const store = new InMemoryCommitStore();
    const kafka = broker();
    const link = kafka.connection();
    link.down = true;
    const b = new Outbox(store, link, logger, { retry: { baseMs: 5, maxMs: 20 }, releaseIntervalMs: 10 });
    const commit = (streamId: string, version: number, position: number, commitId: string): Commit => ({
      commitId,
      appId: 'app',
      streamId,
      startVersion: version,
      endVersion: version,
      position,
      events: [testEnvelope('Added', streamId, version, { n: version })],
      committedAt: new Date(1_000),
    });
    const staged = (position: number, commits: Commit[]) => {
      store.beginAppend({ position, commits });
      for (const c of commits) store.appendOne(c);
    };
    // Replica B's first batch waits for Kafka; meanwhile B appends versions 2 and 4 of stream s, and
    // replica A (not publishing yet) version 3 between them.
    staged(1, [commit('t', 1, 1, 'b-t1')]);
    b.enqueueUncertain(1);
    await sleep(20);
    staged(2, [commit('s', 2, 2, 'b-s2')]);
    b.enqueueUncertain(2);
    staged(1_001, [commit('s', 3, 1_001, 'a-s3')]);
    staged(3, [commit('s', 4, 3, 'b-s4')]);
    b.enqueueUncertain(3);
    link.down = false;
    await b.stop();
    expect(versionsOf(kafka.log, 's')).toEqual([2, 3, 4]);
  });

  it('a recovery forgets an entry whose commits never landed once it is older than an append can take', async () => {
    const store = new InMemoryCommitStore();
    const lost = { commitId: 'x', streamId: 's', startVersion: 1 } as Commit;
    store.beginAppend({ position: 1, commits: [lost] }, new Date(Date.now() - 120_000));
    store.beginAppend({ position: 2, commits: [{ ...lost, commitId: 'y' }] });
    const restarted = new CommandRunner({
      store,
      publisher: kafkaNeverCalled,
      readModels: { apply: () => Promise.resolve() },
      logger,
      outbox: { abandonedEntryMs: 60_000 },
    });
    await restarted.start();
    expect((await store.unpublished()).map((entry) => [entry.id, entry.complete])).toEqual([[2, false]]);
    await restarted.stop();
  });
});

const kafkaNeverCalled: EventPublisher = {
  publish: () => Promise.reject(new Error('nothing was stored, so nothing may be published')),
};

describe('inStreamOrder', () => {
  const commit = (streamId: string, startVersion: number, position: number) =>
    ({ streamId, startVersion, endVersion: startVersion, position, events: [] }) as unknown as Commit;

  it('orders each stream by version within the slots its commits hold in position order', () => {
    const ordered = inStreamOrder([commit('s', 1, 5), commit('s', 3, 6), commit('t', 1, 7), commit('s', 2, 1001)]);
    expect(ordered.map((c) => `${c.streamId}${c.startVersion}@${c.position}`)).toEqual(['s1@5', 's2@1001', 't1@7', 's3@6']);
  });
});

describe('the outbox’s produce requests', () => {
  it('carries every batch that queued during a produce in the next one, in position order, and releases them all', async () => {
    const store = new InMemoryCommitStore();
    const produces: number[][] = [];
    let firstAcked!: () => void;
    const firstAck = new Promise<void>((resolve) => (firstAcked = resolve));
    const slowFirst: EventPublisher = {
      publish: async (events) => {
        produces.push(events.map((e) => e.version));
        if (produces.length === 1) await firstAck;
      },
    };
    const runner = new CommandRunner({ store, publisher: slowFirst, readModels: { apply: () => Promise.resolve() }, logger, outbox: { releaseIntervalMs: 10 } });
    await runner.start();
    await runner.run({ decider: tally, streamId: 's', command: { n: 1 }, metadata });
    // Three appends while the first produce waits for its acks: one produce, not three, follows it.
    for (const n of [2, 3, 4]) await runner.run({ decider: tally, streamId: 's', command: { n }, metadata });
    expect(produces).toEqual([[1]]);
    firstAcked();
    await runner.stop();
    expect(produces).toEqual([[1], [2, 3, 4]]);
    expect(await store.unpublished()).toEqual([]);
  });

  it('takes queued batches up to the produce size, and a larger one alone', () => {
    const batch = (events: number) => ({ commits: [{ events: Array.from({ length: events }) } as unknown as Commit] });
    const queue = [batch(3), batch(4), batch(5), batch(1)];
    expect(takeBatches(queue, 8)).toEqual([queue[0], queue[1]]);
    expect(takeBatches(queue, 2)).toEqual([queue[0]]);
    expect(takeBatches([], 8)).toEqual([]);
  });

  describe('bulk batches (a data import’s, ADR 0159)', () => {
    type Imported = DomainEvent<'Imported', { n: number; imported: true }>;
    const importing: Decider<{ total: number }, { n: number }, Imported | Added> = {
      initialState: () => ({ total: 0 }),
      decide: (command) => (command.n > 0 ? [{ type: 'Imported', data: { n: command.n, imported: true } }] : [{ type: 'Added', data: { n: -command.n } }]),
      evolve: (state, event) => ({ total: state.total + event.data.n }),
      snapshotVersion: 1,
    };
    const lingering = (produces: Array<{ at: number; ns: number[] }>, maxEventsPerPublish = 500) => {
      const started = Date.now();
      const publisher: EventPublisher = {
        publish: (events) => {
          produces.push({ at: Date.now() - started, ns: events.map((e) => (e.data as { n: number }).n) });
          return Promise.resolve();
        },
      };
      return new CommandRunner({
        store: new InMemoryCommitStore(),
        publisher,
        readModels: { apply: () => Promise.resolve() },
        logger,
        outbox: { releaseIntervalMs: 10, maxEventsPerPublish, bulk: { isBulk: (event) => event.data['imported'] === true, lingerMs: 80 } },
      });
    };

    it('wait for the next ones up to the linger, then go in one produce', async () => {
      const produces: Array<{ at: number; ns: number[] }> = [];
      const runner = lingering(produces);
      await runner.start();
      for (const n of [1, 2, 3]) await runner.run({ decider: importing, streamId: `u${n}`, command: { n }, metadata });
      expect(produces).toEqual([]);
      await sleep(150);
      expect(produces.map((p) => p.ns)).toEqual([[1, 2, 3]]);
      expect(produces[0]!.at).toBeGreaterThanOrEqual(70);
      await runner.stop();
      expect(produces).toHaveLength(1);
    });

    it('go at once when any other event is queued behind them, in order', async () => {
      const produces: Array<{ at: number; ns: number[] }> = [];
      const runner = lingering(produces);
      await runner.start();
      await runner.run({ decider: importing, streamId: 'u1', command: { n: 1 }, metadata });
      await runner.run({ decider: importing, streamId: 'u2', command: { n: -2 }, metadata });
      await sleep(20);
      expect(produces.flatMap((p) => p.ns)).toEqual([1, 2]);
      expect(produces.every((p) => p.at < 60)).toBe(true);
      await runner.stop();
    });

    it('go at once when a full produce is queued', async () => {
      const produces: Array<{ at: number; ns: number[] }> = [];
      const runner = lingering(produces, 2);
      await runner.start();
      for (const n of [1, 2]) await runner.run({ decider: importing, streamId: `u${n}`, command: { n }, metadata });
      await sleep(20);
      expect(produces.map((p) => p.ns)).toEqual([[1, 2]]);
      await runner.stop();
    });

    it('are published by a stop without waiting out the linger twice', async () => {
      const produces: Array<{ at: number; ns: number[] }> = [];
      const runner = lingering(produces);
      await runner.start();
      await runner.run({ decider: importing, streamId: 'u1', command: { n: 1 }, metadata });
      await runner.stop();
      expect(produces.map((p) => p.ns)).toEqual([[1]]);
      expect(await runner.published(10)).toBe(true);
    });
  });
});
