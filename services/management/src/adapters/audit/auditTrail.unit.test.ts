import type { EventEnvelope } from '@chat/contracts';
import { InMemoryDocumentStore } from '@chat/mongo';
import type { DocumentStore, GuardedWrite, StoredRecord } from '@chat/mongo';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuditTrail } from './auditTrail.js';
import { auditEntryOf, chunksNewestFirst, mayBeAudited } from '../../domain/audit/auditLog.js';
import type { AuditHead, AuditLimits } from '../../domain/audit/auditLog.js';

const KEY_A = 'aaaaaaaaaaaaaaaa';
const KEY_B = 'bbbbbbbbbbbbbbbb';
const SMALL: AuditLimits = { chunkEntries: 4, retainedEntries: 8 };
/** Small chunks, retention out of the way. */
const ROOMY: AuditLimits = { chunkEntries: 4, retainedEntries: 100 };

let sequence = 0;

/** An event caused by `keyId` at second `at` (distinct ids, so equal times still order). */
function event(at: number, options: { keyId?: string; type?: string; uid?: string; data?: Record<string, unknown>; appId?: string } = {}): EventEnvelope {
  sequence += 1;
  return {
    id: `e${String(sequence).padStart(6, '0')}`,
    type: options.type ?? 'UserCreated',
    schemaVersion: 1,
    appId: options.appId ?? 'app1',
    streamId: `user:${sequence}`,
    version: 1,
    occurredAt: new Date(Date.UTC(2026, 0, 1) + at * 1000).toISOString(),
    actor: { keyId: options.keyId ?? KEY_A, scope: 'fullAccess', ...(options.uid ? { uid: options.uid } : {}) },
    correlationId: `c${sequence}`,
    causationId: null,
    data: options.data ?? {},
  };
}

/** The store of a process that dies when it first replaces an existing chunk (after its head write). */
class ChunkWriteFailure implements DocumentStore {
  failNextChunkReplace = false;
  constructor(private readonly inner: InMemoryDocumentStore) {}
  findMany(ids: readonly string[]) {
    return this.inner.findMany(ids);
  }
  insert(documents: readonly StoredRecord[]) {
    return this.inner.insert(documents);
  }
  writeGuarded(writes: readonly GuardedWrite[]) {
    const chunkReplace = writes.some((w) => w.kind === 'replace' && w.document._id.split(':').length === 3);
    if (this.failNextChunkReplace && chunkReplace) {
      this.failNextChunkReplace = false;
      return Promise.reject(new Error('process stopped'));
    }
    return this.inner.writeGuarded(writes);
  }
}

function trail(limits: AuditLimits = SMALL, store = new InMemoryDocumentStore()) {
  let tag = 0;
  return { store, trail: new AuditTrail(store, limits, () => `.t${++tag}`) };
}

/** Every entry of a key's log, newest first, read the way the API reads it. */
async function all(t: AuditTrail, keyId = KEY_A, appId = 'app1'): Promise<string[]> {
  const { entries } = await t.page(appId, keyId, {}, 0, 10_000);
  return entries.map((e) => e.id);
}

function newestFirst(events: readonly EventEnvelope[]): string[] {
  return [...events].sort((a, b) => (a.occurredAt === b.occurredAt ? (a.id < b.id ? 1 : -1) : a.occurredAt < b.occurredAt ? 1 : -1)).map((e) => e.id);
}

describe('audit entries', () => {
  it('come from events an API key caused, with the acting user and the import mark', () => {
    const found = auditEntryOf(event(1, { uid: 'alice', data: { imported: true }, type: 'MessageSent' }));
    expect(found?.keyId).toBe(KEY_A);
    expect(found?.entry).toMatchObject({ type: 'MessageSent', uid: 'alice', imported: true, scope: 'fullAccess', version: 1 });
    // System actors (the management API, the webhooks process) are no API key.
    expect(auditEntryOf(event(1, { keyId: 'management' }))).toBeNull();
    expect(auditEntryOf(event(1, { keyId: 'webhooks' }))).toBeNull();
  });

  it('are judged from the keyId header before decoding: a system actor\'s record is skipped, one without the header read', () => {
    expect(mayBeAudited(KEY_A)).toBe(true);
    expect(auditEntryOf(event(1, { keyId: KEY_A }))).not.toBeNull();
    for (const system of ['management', 'webhooks', 'notifications', '']) {
      expect(mayBeAudited(system)).toBe(false);
      expect(auditEntryOf(event(1, { keyId: system }))).toBeNull();
    }
    expect(mayBeAudited(undefined)).toBe(true);
  });
});

describe('the chunked log (domain)', () => {
  it('appends into chunks of the bounded size, cut with room for late arrivals, and lists newest first', async () => {
    const { trail: t, store } = trail();
    const events = Array.from({ length: 10 }, (_, i) => event(i));
    for (const e of events) await t.apply([e]);
    expect(await all(t)).toEqual(newestFirst(events));
    const head = (await t.head('app1', KEY_A)) as AuditHead;
    // Cut at three quarters of 4: each older chunk keeps one place for a late event.
    expect(head.chunks.map((c) => c.count)).toEqual([3, 3, 4]);
    // Head plus three chunks, all addressed by id.
    expect(store.stored().map((d) => d._id)).toEqual(['app1:aaaaaaaaaaaaaaaa', ...head.chunks.map((c) => `app1:${KEY_A}:${c.n}`)].sort());
  });

  it('drops a redelivered event, in the same batch or a later one, wherever its chunk now is', async () => {
    const { trail: t, store } = trail();
    const events = Array.from({ length: 9 }, (_, i) => event(i));
    await t.apply(events);
    const before = store.stored();
    await t.apply([events[0]!, events[4]!, events[8]!, events[8]!]);
    await t.apply(events);
    expect(store.stored()).toEqual(before);
    expect(await all(t)).toEqual(newestFirst(events));
  });

  it('places a late event (another partition, older time) in key order, splitting an older full chunk', async () => {
    const { trail: t } = trail(ROOMY);
    const early = Array.from({ length: 12 }, (_, i) => event(i * 10));
    await t.apply(early);
    const late = [event(15), event(16), event(17)];
    await t.apply(late);
    expect(await all(t)).toEqual(newestFirst([...early, ...late]));
    const head = (await t.head('app1', KEY_A)) as AuditHead;
    expect(head.chunks.every((c) => c.count <= SMALL.chunkEntries)).toBe(true);
  });

  it('keeps at least the retained number and at most one chunk more, and ignores what is older than the horizon', async () => {
    const { trail: t, store } = trail();
    const events = Array.from({ length: 30 }, (_, i) => event(i + 100));
    for (const e of events) await t.apply([e]);
    const kept = await all(t);
    expect(kept.length).toBeGreaterThanOrEqual(SMALL.retainedEntries);
    expect(kept.length).toBeLessThan(SMALL.retainedEntries + SMALL.chunkEntries);
    expect(kept).toEqual(newestFirst(events).slice(0, kept.length));
    const head = (await t.head('app1', KEY_A)) as AuditHead;
    // Dropped chunks are gone from the store, not only from the head.
    expect(store.stored()).toHaveLength(1 + head.chunks.length);
    // A replay from offset 0 brings nothing back.
    const before = store.stored();
    await t.apply(events);
    expect(store.stored()).toEqual(before);
    // An event older than the horizon that was never seen is not kept either.
    await t.apply([event(0)]);
    expect(store.stored()).toEqual(before);
  });

  it('ends in the same log whatever the batching, and a rebuild from empty lists the same entries', async () => {
    const events = Array.from({ length: 40 }, (_, i) => event((i * 7) % 40, { keyId: i % 3 === 0 ? KEY_B : KEY_A }));
    const one = trail(ROOMY);
    await one.trail.apply(events);
    const many = trail(ROOMY);
    for (let i = 0; i < events.length; i += 3) await many.trail.apply(events.slice(i, i + 3));
    for (const key of [KEY_A, KEY_B]) {
      const expected = newestFirst(events.filter((e) => e.actor.keyId === key));
      expect(await all(one.trail, key)).toEqual(expected);
      expect(await all(many.trail, key)).toEqual(expected);
    }
  });

  it('keeps each key and each app to its own log', async () => {
    const { trail: t } = trail();
    const a = event(1);
    const b = event(2, { keyId: KEY_B });
    const other = event(3, { appId: 'app2' });
    await t.apply([a, b, other]);
    expect(await all(t, KEY_A)).toEqual([a.id]);
    expect(await all(t, KEY_B)).toEqual([b.id]);
    expect(await all(t, KEY_A, 'app2')).toEqual([other.id]);
  });

  it('pages newest first below a key, and filters by type and time without reading chunks out of range', async () => {
    const { trail: t } = trail(ROOMY);
    const events = Array.from({ length: 20 }, (_, i) => event(i, { type: i % 2 === 0 ? 'UserCreated' : 'MessageSent' }));
    await t.apply(events);
    const order = newestFirst(events);
    const first = await t.page('app1', KEY_A, {}, 0, 5);
    expect(first.entries.map((e) => e.id)).toEqual(order.slice(0, 5));
    expect(first).toMatchObject({ total: 20, more: true });
    const second = await t.page('app1', KEY_A, { belowKey: first.entries.at(-1)!.k }, 0, 5);
    expect(second.entries.map((e) => e.id)).toEqual(order.slice(5, 10));
    const typed = await t.page('app1', KEY_A, { types: new Set(['MessageSent']) }, 0, 100);
    expect(typed.total).toBe(10);
    expect(typed.entries.every((e) => e.type === 'MessageSent')).toBe(true);
    const since = new Date(Date.UTC(2026, 0, 1) + 5_000).toISOString();
    const before = new Date(Date.UTC(2026, 0, 1) + 9_000).toISOString();
    const window = await t.page('app1', KEY_A, { since, before }, 0, 100);
    expect(window.entries.map((e) => e.id)).toEqual(order.slice(11, 15));
    const head = (await t.head('app1', KEY_A)) as AuditHead;
    expect(chunksNewestFirst(head, { since, before }).length).toBeLessThan(head.chunks.length);
  });

  it('is whole after a writer stopped between the head and the chunks it changed, once the batch is redelivered', async () => {
    const store = new InMemoryDocumentStore();
    const crashing = new ChunkWriteFailure(store);
    const events = Array.from({ length: 12 }, (_, i) => event(i * 10));
    await trail(ROOMY, store).trail.apply(events.slice(0, 8));
    // A late batch splits an older chunk; the process dies after committing the head.
    const late = [event(15), event(16), event(17), event(18)];
    crashing.failNextChunkReplace = true;
    await expect(new AuditTrail(crashing, ROOMY, () => '.crashed').apply([...late, ...events.slice(8)])).rejects.toThrow('stopped');
    // Kafka hands the uncommitted batch to the next process.
    const { trail: next } = trail(ROOMY, store);
    await next.apply([...late, ...events.slice(8)]);
    expect(await all(next)).toEqual(newestFirst([...events, ...late]));
  });
});

describe('concurrent writers of one key', () => {
  it('lose cleanly and end with every entry once (two processes over one store)', async () => {
    const store = new InMemoryDocumentStore();
    const one = trail(SMALL, store).trail;
    let tag = 0;
    const two = new AuditTrail(store, SMALL, () => `.u${++tag}`);
    const events = Array.from({ length: 7 }, (_, i) => event(i));
    await Promise.all([one.apply(events.slice(0, 4)), two.apply(events.slice(3))]);
    expect(await all(one)).toEqual(newestFirst(events));
  });
});

// ADR 0095: a key's next batch folds onto the documents this process wrote, unread; every write stays guarded.
describe('documents kept from the last write', () => {
  /** Counts the ids read, by document kind. */
  class CountingStore implements DocumentStore {
    readonly reads: string[] = [];
    constructor(readonly inner = new InMemoryDocumentStore()) {}
    findMany(ids: readonly string[]) {
      this.reads.push(...ids);
      return this.inner.findMany(ids);
    }
    insert(documents: readonly StoredRecord[]) {
      return this.inner.insert(documents);
    }
    writeGuarded(writes: readonly GuardedWrite[]) {
      return this.inner.writeGuarded(writes);
    }
  }

  it('are not read back for the same key\'s next batches', async () => {
    const counting = new CountingStore();
    const { trail: t } = trail(ROOMY, counting.inner);
    const reader = new AuditTrail(counting, ROOMY, () => '.r');
    const events = Array.from({ length: 11 }, (_, i) => event(i));
    await reader.apply(events.slice(0, 3));
    const first = counting.reads.length;
    expect(first).toBeGreaterThan(0);
    // Into the same chunk, then across a cut into a new one, then a late event into an older chunk.
    await reader.apply(events.slice(3, 4));
    await reader.apply(events.slice(4, 10));
    const late = event(2.5);
    await reader.apply([events[10] as EventEnvelope, late]);
    expect(counting.reads).toHaveLength(first);
    // Another key's log is read as before.
    await reader.apply([event(30, { keyId: KEY_B })]);
    expect(counting.reads.length).toBeGreaterThan(first);
    expect(await all(t)).toEqual(newestFirst([...events, late]));
  });

  it('lose their race once another process wrote the key, and the batch goes round again read anew', async () => {
    const store = new InMemoryDocumentStore();
    const one = trail(ROOMY, store).trail;
    let tag = 0;
    const two = new AuditTrail(store, ROOMY, () => `.u${++tag}`);
    const events = Array.from({ length: 14 }, (_, i) => event(i));
    // Alternating writers: each one's kept copy is stale at its next batch, and a late event goes to an older chunk.
    for (let at = 0; at < 12; at += 2) await (at % 4 === 0 ? one : two).apply(events.slice(at, at + 2));
    const late = event(0.5);
    await one.apply([late, ...events.slice(12)]);
    expect(await all(one)).toEqual(newestFirst([...events, late]));
    const head = (await two.head('app1', KEY_A)) as AuditHead;
    expect(head.chunks.reduce((sum, c) => sum + c.count, 0)).toBe(events.length + 1);
  });
});

describe('any delivery of the same events (property)', () => {
  it('lists every event of each key exactly once, newest first, whatever the batching, interleaving and redelivery', async () => {
    // Events of two keys at random times (ties included); delivered as partitions would: the sequence
    // cut into runs, some runs delivered again, lanes taking turns in a random order.
    const plan = fc.record({
      times: fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.boolean()), { minLength: 1, maxLength: 80 }),
      lanes: fc.integer({ min: 1, max: 4 }),
      run: fc.integer({ min: 1, max: 12 }),
      again: fc.array(fc.boolean(), { maxLength: 40 }),
      seed: fc.integer({ min: 1, max: 2 ** 30 }),
    });
    await fc.assert(
      fc.asyncProperty(plan, async ({ times, lanes, run, again, seed }) => {
        const events = times.map(([at, isB]) => event(at, { keyId: isB ? KEY_B : KEY_A }));
        const laneOf = events.map((_, i) => (i * 7 + seed) % lanes);
        const runs: EventEnvelope[][] = [];
        for (let lane = 0; lane < lanes; lane++) {
          const mine = events.filter((_, i) => laneOf[i] === lane);
          for (let at = 0; at < mine.length; at += run) runs.push(mine.slice(at, at + run));
        }
        const deliveries = runs.flatMap((r, i) => (again[i] ? [r, r] : [r]));
        let state = seed;
        const order = deliveries.map((r) => ({ r, k: (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) })).sort((x, y) => x.k - y.k);
        const { trail: t } = trail(ROOMY);
        await Promise.all([order.filter((_, i) => i % 2 === 0), order.filter((_, i) => i % 2 === 1)].map(async (half) => {
          for (const { r } of half) await t.apply(r);
        }));
        for (const key of [KEY_A, KEY_B]) {
          expect(await all(t, key)).toEqual(newestFirst(events.filter((e) => e.actor.keyId === key)));
        }
        const head = await t.head('app1', KEY_A);
        if (head) expect(head.chunks.every((c) => c.count > 0 && c.count <= ROOMY.chunkEntries)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});

// ADR 0125: the lanes of one fetch deliver side by side; their batches go into one write.
describe('batches of lanes delivered together', () => {
  /** Counts the guarded writes and inserts (commands), and fails them while `failing`. */
  class WriteCounter implements DocumentStore {
    commands = 0;
    failing = false;
    constructor(readonly inner = new InMemoryDocumentStore()) {}
    findMany(ids: readonly string[]) {
      return this.inner.findMany(ids);
    }
    insert(documents: readonly StoredRecord[]) {
      if (documents.length > 0) this.commands += 1;
      return this.failing ? Promise.reject(new Error('store away')) : this.inner.insert(documents);
    }
    writeGuarded(writes: readonly GuardedWrite[]) {
      if (writes.length > 0) this.commands += 1;
      return this.failing ? Promise.reject(new Error('store away')) : this.inner.writeGuarded(writes);
    }
  }

  it('are written once for all of them, each batch resolved when its entries are stored', async () => {
    const counter = new WriteCounter();
    const t = new AuditTrail(counter, ROOMY, () => '.w');
    const start = event(0);
    await t.apply([start]);
    const first = counter.commands;
    // Three lanes of a fetch, one key: the newest chunk and the head are written once, not three times.
    const lanes = [[event(1), event(2)], [event(3)], [event(4, { keyId: KEY_B }), event(5)]];
    await Promise.all(lanes.map((lane) => t.apply(lane)));
    // Key A: its chunk and its head; key B: a new chunk and a new head (inserts) — four commands at most.
    expect(counter.commands - first).toBeLessThanOrEqual(4);
    expect(await all(t)).toEqual(newestFirst([start, ...lanes.flat()].filter((e) => e.actor.keyId === KEY_A)));
    expect(await all(t, KEY_B)).toHaveLength(1);
  });

  it('fail together when the write fails, and the next batches are written again', async () => {
    const counter = new WriteCounter();
    const t = new AuditTrail(counter, ROOMY, () => '.f');
    counter.failing = true;
    const results = await Promise.allSettled([t.apply([event(0)]), t.apply([event(1)])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    counter.failing = false;
    const later = [event(2), event(3)];
    await Promise.all(later.map((e) => t.apply([e])));
    expect(await all(t)).toEqual(newestFirst(later));
  });
});
