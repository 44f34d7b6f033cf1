import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@chat/contracts';
import { RecentlyUsed } from '@chat/eventsourcing';
import { findDocument } from '@chat/mongo';
import type { DocumentStore, EventApplier, GuardedWrite, StoredRecord } from '@chat/mongo';
import {
  DEFAULT_AUDIT_LIMITS,
  appendEntries,
  auditChunkId,
  auditEntryOf,
  auditHeadId,
  chunksNewestFirst,
  chunksTouched,
  clipToRange,
  isFiltered,
  matchingNewestFirst,
  retainedCount,
} from '../../domain/audit/auditLog.js';
import type { AuditAppend, AuditChunkRef, AuditEntry, AuditFilter, AuditHead, AuditLimits } from '../../domain/audit/auditLog.js';

export const AUDIT_COLLECTION = 'apikeyaudit';

/**
 * Lists are stored as JSON text (ADR 0006): FerretDB decodes every nested document of a field on each
 * read and write, and a string is far cheaper to pass.
 */
interface HeadRecord extends StoredRecord {
  appId: string;
  keyId: string;
  chunks: string;
  nextChunk: number;
  horizon: string | null;
}

interface ChunkRecord extends StoredRecord {
  entries: string;
}

/** Chunk reads in flight at once when a filtered list walks a whole log. */
const READ_CONCURRENCY = 8;

/** Rounds of re-read and re-fold for one key's log while other writers keep changing it. */
const MAX_ROUNDS = 20;

/**
 * Key logs whose documents, as this process last wrote them, are kept in memory (ADR 0095): the next
 * batch of the same key folds onto them without reading its head and chunk back. The least recently used goes first.
 */
const KEPT_LOGS = 1_000;

interface KeyLog {
  appId: string;
  keyId: string;
  entries: AuditEntry[];
}

/** A key's log as read this round: its head (with `_rev`), and the contents of the chunks the new entries fall in. */
interface ReadLog {
  log: KeyLog;
  head: AuditHead | null;
  headRev: number | null;
  chunkRevs: Map<string, number>;
  contents: Map<string, AuditEntry[]>;
}

/** A key log's documents as this process wrote them: every write is guarded by `_rev`, so a stale copy only loses a race. */
interface WrittenLog {
  head: AuditHead;
  headRev: number;
  chunkRevs: Map<string, number>;
  contents: Map<string, AuditEntry[]>;
}

/**
 * Writes the per-key audit logs from batches of events and reads them back. All documents of all keys
 * of a batch are read once per round (in parallel, by `_id`), folded in memory by the pure domain
 * code, and written in few commands through the projection runtime's store port (inserts grouped,
 * compare-and-set replaces on exactly `{_id, _rev}` in commands of ≤ 50).
 *
 * Write order makes a stop at any point harmless: new chunks first (under fresh names, so only the
 * head can make them visible), then the head (the commit), then the chunks that existed before, then
 * the chunks retention dropped. A head that lost its compare-and-set sends its key round again.
 */
export class AuditTrail implements EventApplier {
  /** Per key log (head id), what this process wrote last; see `KEPT_LOGS`. */
  private readonly written = new RecentlyUsed<string, WrittenLog>(KEPT_LOGS);
  /**
   * Batches that arrived while a write was in flight (ADR 0125): the consumer's lanes deliver a
   * fetch's partitions side by side, and all of them go into the next write together instead of one
   * write of the same key's newest chunk per lane. One write at a time per process: the lanes take
   * turns as the projection runtime's batches do per document; replicas race under the guards.
   */
  private waiting: WaitingBatch[] = [];
  private writing = false;

  constructor(
    private readonly store: DocumentStore,
    private readonly limits: AuditLimits = DEFAULT_AUDIT_LIMITS,
    private readonly newTag: () => string = () => `.${randomBytes(4).toString('hex')}`,
  ) {}

  /** Resolves once the events' entries are stored, together with those of the batches written with them. */
  apply(events: readonly EventEnvelope[]): Promise<void> {
    const logs = keyLogsOf(events);
    if (logs.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ logs, resolve, reject });
      if (this.writing) return;
      // The other lanes of the same fetch are decoded by then and wait here too: one write for all.
      this.writing = true;
      setImmediate(() => void this.writeWaiting());
    });
  }

  /** Writes what waits, all of it at once, until nothing does; each batch hears how its write went. */
  private async writeWaiting(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batches = this.waiting;
        this.waiting = [];
        try {
          await this.write(mergedLogs(batches.map((b) => b.logs)));
          for (const batch of batches) batch.resolve();
        } catch (error) {
          for (const batch of batches) batch.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async write(logs: readonly KeyLog[]): Promise<void> {
    let pending = logs;
    for (let round = 0; pending.length > 0; round++) {
      if (round >= MAX_ROUNDS) throw new Error(`audit trail: ${pending.length} key log(s) kept changing, e.g. ${pending[0]?.keyId}`);
      pending = await this.round(pending);
    }
  }

  /** The head of a key's log, or null before its first entry. */
  async head(appId: string, keyId: string): Promise<AuditHead | null> {
    const stored = (await findDocument(this.store, auditHeadId(appId, keyId))) as HeadRecord | null;
    return stored ? headOf(stored) : null;
  }

  /**
   * A page of a key's log, newest first: `skip` matching entries passed over, then up to `limit`.
   * Chunks are read newest first by `_id` and only as far as the page needs; with a filter the whole
   * retained log is walked to count the matches (retention bounds that walk).
   */
  async page(
    appId: string,
    keyId: string,
    filter: AuditFilter,
    skip: number,
    limit: number,
  ): Promise<{ entries: AuditEntry[]; total: number; more: boolean }> {
    const head = await this.head(appId, keyId);
    if (!head) return { entries: [], total: 0, more: false };
    // The total counts the whole filtered list, not what lies below the cursor.
    const counting = isFiltered(filter);
    const walk = counting ? { ...filter, belowKey: undefined } : filter;
    const entries: AuditEntry[] = [];
    let matched = 0;
    let below = 0;
    const refs = chunksNewestFirst(head, walk);
    // Counting needs every chunk in range: read them side by side. A plain page reads newest first and stops.
    const prefetched = counting ? await mapInBatches(refs, READ_CONCURRENCY, (ref) => this.chunkEntries(head, ref)) : undefined;
    for (const [index, ref] of refs.entries()) {
      if (!counting && below > skip + limit) break;
      const stored = prefetched ? (prefetched[index] as AuditEntry[]) : await this.chunkEntries(head, ref);
      for (const entry of matchingNewestFirst(stored, walk)) {
        matched += 1;
        if (filter.belowKey !== undefined && entry.k >= filter.belowKey) continue;
        if (below >= skip && entries.length < limit) entries.push(entry);
        below += 1;
      }
    }
    return { entries, total: counting ? matched : retainedCount(head), more: below > skip + limit };
  }

  private async chunkEntries(head: AuditHead, ref: AuditChunkRef): Promise<AuditEntry[]> {
    const stored = (await findDocument(this.store, auditChunkId(head.appId, head.keyId, ref.n))) as ChunkRecord | null;
    return stored ? clipToRange(head, ref.n, JSON.parse(stored.entries) as AuditEntry[]) : [];
  }

  /** One read-fold-write pass over the keys; answers the keys that lost a race and go round again. */
  private async round(logs: readonly KeyLog[]): Promise<KeyLog[]> {
    const read = await Promise.all(logs.map((log) => this.read(log)));
    const folded: { read: ReadLog; append: AuditAppend }[] = [];
    for (const r of read) {
      const append = appendEntries(r.log.appId, r.log.keyId, r.head, r.contents, r.log.entries, this.limits, this.newTag);
      if (append) folded.push({ read: r, append });
    }
    if (folded.length === 0) return [];

    // 1. New chunks: fresh names, invisible until a head names them.
    const created = folded.flatMap(({ read: r, append }) =>
      [...append.created].map((n) => chunkRecord(r.log, n, append.chunks.get(n) as AuditEntry[], 1)),
    );
    // A name is fresh (random tag), so a duplicate is this very insert landing before a lost connection
    // made the store send it again: written.
    await this.store.insert(created);

    // 2. Heads: the commit point of each key's change.
    const newHeads: StoredRecord[] = [];
    const headWrites: GuardedWrite[] = [];
    for (const { read: r, append } of folded) {
      if (r.headRev === null) newHeads.push(headRecord(append.head, 1));
      else if (!sameHead(r.head, append.head)) headWrites.push({ kind: 'replace', document: headRecord(append.head, r.headRev + 1), expectedRev: r.headRev });
    }
    const lostHeads = new Set([...(await this.store.insert(newHeads)), ...(await this.store.writeGuarded(headWrites))]);
    const committed = folded.filter(({ read: r }) => !lostHeads.has(auditHeadId(r.log.appId, r.log.keyId)));

    // 3. Chunks that existed before; 4. chunks retention dropped.
    const chunkWrites: GuardedWrite[] = [];
    const missing: ChunkRecord[] = [];
    for (const { read: r, append } of committed) {
      for (const [n, entries] of append.chunks) {
        if (append.created.has(n)) continue;
        const rev = r.chunkRevs.get(n);
        if (rev === undefined) missing.push(chunkRecord(r.log, n, entries, 1));
        else chunkWrites.push({ kind: 'replace', document: chunkRecord(r.log, n, entries, rev + 1), expectedRev: rev });
      }
    }
    // A named chunk that is not stored (a store restored from a partial backup) is written anew; one
    // another writer wrote meanwhile is a lost race like any other.
    const lostChunks = new Set([...(await this.store.writeGuarded(chunkWrites)), ...(await this.store.insert(missing))]);
    await this.dropChunks(committed.flatMap(({ read: r, append }) => append.dropped.map((n) => auditChunkId(r.log.appId, r.log.keyId, n))));

    const retry = new Set([...lostHeads]);
    for (const id of lostChunks) retry.add(id.slice(0, id.lastIndexOf(':')));
    for (const { read: r, append } of folded) this.remember(r, append, retry);
    return logs.filter((log) => retry.has(auditHeadId(log.appId, log.keyId)));
  }

  /**
   * Keeps a key's documents as this round wrote them, for its next batch; a key that lost a race (or
   * whose write failed) is read again. Revisions follow the writes above: a created or missing chunk
   * is at 1, a replaced one a step further; an unchanged head keeps its revision.
   */
  private remember(r: ReadLog, append: AuditAppend, lost: ReadonlySet<string>): void {
    const id = auditHeadId(r.log.appId, r.log.keyId);
    this.written.delete(id);
    if (lost.has(id)) return;
    const headRev = r.headRev === null ? 1 : sameHead(r.head, append.head) ? r.headRev : r.headRev + 1;
    const chunkRevs = new Map<string, number>();
    const contents = new Map<string, AuditEntry[]>();
    for (const ref of append.head.chunks) {
      const entries = append.chunks.get(ref.n) ?? r.contents.get(ref.n);
      const rev = append.chunks.has(ref.n) ? (append.created.has(ref.n) ? 1 : (r.chunkRevs.get(ref.n) ?? 0) + 1) : r.chunkRevs.get(ref.n);
      if (entries === undefined || rev === undefined) continue;
      contents.set(ref.n, entries);
      chunkRevs.set(ref.n, rev);
    }
    this.written.set(id, { head: append.head, headRev, chunkRevs, contents });
  }

  private async read(log: KeyLog): Promise<ReadLog> {
    const kept = this.written.get(auditHeadId(log.appId, log.keyId));
    if (kept) {
      const touched = chunksTouched(kept.head, log.entries);
      if (touched.every((n) => kept.contents.has(n))) {
        const contents = new Map(touched.map((n) => [n, kept.contents.get(n) as AuditEntry[]]));
        return { log, head: kept.head, headRev: kept.headRev, chunkRevs: new Map(kept.chunkRevs), contents };
      }
    }
    const stored = (await findDocument(this.store, auditHeadId(log.appId, log.keyId))) as HeadRecord | null;
    const head = stored ? headOf(stored) : null;
    const touched = chunksTouched(head, log.entries);
    const chunks = await this.store.findMany(touched.map((n) => auditChunkId(log.appId, log.keyId, n)));
    const contents = new Map<string, AuditEntry[]>();
    const chunkRevs = new Map<string, number>();
    touched.forEach((n) => {
      const chunk = chunks.get(auditChunkId(log.appId, log.keyId, n)) as ChunkRecord | undefined;
      // A chunk a head names is written before the head; only a store restored from a partial backup lacks one.
      contents.set(n, chunk ? (JSON.parse(chunk.entries) as AuditEntry[]) : []);
      if (chunk) chunkRevs.set(n, chunk._rev);
    });
    return { log, head, headRev: stored?._rev ?? null, chunkRevs, contents };
  }

  /** Removes dropped chunks; one that is already gone (another writer removed it) is fine. */
  private async dropChunks(ids: readonly string[]): Promise<void> {
    const found = await this.store.findMany(ids);
    const deletes: GuardedWrite[] = [...found.values()].map((doc) => ({ kind: 'delete' as const, id: doc._id, expectedRev: doc._rev }));
    await this.store.writeGuarded(deletes);
  }
}

interface WaitingBatch {
  logs: KeyLog[];
  resolve(): void;
  reject(error: unknown): void;
}

/** A batch's entries by key log. */
function keyLogsOf(events: readonly EventEnvelope[]): KeyLog[] {
  const logs = new Map<string, KeyLog>();
  for (const event of events) {
    const found = auditEntryOf(event);
    if (!found) continue;
    const id = auditHeadId(found.appId, found.keyId);
    const log = logs.get(id) ?? { appId: found.appId, keyId: found.keyId, entries: [] };
    log.entries.push(found.entry);
    logs.set(id, log);
  }
  return [...logs.values()];
}

/** Several batches' key logs as one: a key's entries together (the fold orders them and drops repeats). */
function mergedLogs(batches: readonly KeyLog[][]): KeyLog[] {
  const merged = new Map<string, KeyLog>();
  for (const logs of batches) {
    for (const log of logs) {
      const id = auditHeadId(log.appId, log.keyId);
      const into = merged.get(id);
      if (into) into.entries.push(...log.entries);
      else merged.set(id, { appId: log.appId, keyId: log.keyId, entries: [...log.entries] });
    }
  }
  return [...merged.values()];
}

async function mapInBatches<T, R>(items: readonly T[], size: number, step: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let at = 0; at < items.length; at += size) results.push(...(await Promise.all(items.slice(at, at + size).map(step))));
  return results;
}

function headOf(stored: HeadRecord): AuditHead {
  return {
    appId: stored.appId,
    keyId: stored.keyId,
    chunks: JSON.parse(stored.chunks) as AuditChunkRef[],
    nextChunk: stored.nextChunk,
    horizon: stored.horizon,
  };
}

function headRecord(head: AuditHead, rev: number): HeadRecord {
  return {
    _id: auditHeadId(head.appId, head.keyId),
    _positions: {},
    _rev: rev,
    appId: head.appId,
    keyId: head.keyId,
    chunks: JSON.stringify(head.chunks),
    nextChunk: head.nextChunk,
    horizon: head.horizon,
  };
}

function chunkRecord(log: Pick<KeyLog, 'appId' | 'keyId'>, n: string, entries: readonly AuditEntry[], rev: number): ChunkRecord {
  return { _id: auditChunkId(log.appId, log.keyId, n), _positions: {}, _rev: rev, entries: JSON.stringify(entries) };
}

function sameHead(a: AuditHead | null, b: AuditHead): boolean {
  return a !== null && JSON.stringify(a) === JSON.stringify(b);
}
