import type { EventEnvelope } from '@chat/contracts';
import { commitSlot } from '@chat/eventsourcing';
import type { AppendBatch, AppendResult, Commit, CommitStore, JournalEntry, ReadHeadOptions, Snapshot, StreamHead } from '@chat/eventsourcing';
import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from './connect.js';
import { bulkWriteChunked } from './bulkWrite.js';
import { findByIds } from './findByIds.js';

/**
 * Events and snapshots are stored as JSON text: user-supplied payloads may hold keys with dots or
 * a leading `$`, and nested arrays, none of which FerretDB v1 accepts inside a document (ADR 0002).
 * The store never queries inside an event, so nothing is lost.
 *
 * A commit's `_id` is `<streamId>@<startVersion>`: the append's concurrency check is the primary
 * key itself, and a stream's commits can be walked by `_id` look-ups, the only look-up FerretDB v1
 * serves from an index (ADR 0008).
 */
interface CommitDocument {
  _id: string;
  commitId: string;
  appId: string;
  streamId: string;
  startVersion: number;
  endVersion: number;
  position: number;
  events: string;
  snapshot?: string;
  committedAt: Date;
}

/** The last head saved for a stream; it may lag behind the commits, never lead. */
interface HeadDocument {
  _id: string;
  version: number;
  snapshot?: string;
}

/** A grouped append's intent, written before its commits: the outbox's checkpoint (ADR 0008). */
interface JournalDocument {
  _id: number;
  commits: string[];
  writtenAt?: Date;
}

interface CounterDocument {
  _id: string;
  value: number;
}

export function commitKey(streamId: string, startVersion: number): string {
  return commitSlot({ streamId, startVersion });
}

function commitOf(d: CommitDocument): Commit {
  return {
    commitId: d.commitId,
    appId: d.appId,
    streamId: d.streamId,
    startVersion: d.startVersion,
    endVersion: d.endVersion,
    position: d.position,
    events: JSON.parse(d.events) as EventEnvelope[],
    ...(d.snapshot ? { snapshot: JSON.parse(d.snapshot) as Snapshot } : {}),
    committedAt: d.committedAt,
  };
}

function headOf(commit: Pick<CommitDocument, 'endVersion' | 'snapshot'>): StreamHead {
  return { version: commit.endVersion, ...(commit.snapshot ? { snapshot: JSON.parse(commit.snapshot) as Snapshot } : {}) };
}

export class MongoCommitStore implements CommitStore {
  private readonly commits: Collection<CommitDocument>;
  private readonly heads: Collection<HeadDocument>;
  private readonly journal: Collection<JournalDocument>;
  private readonly counters: Collection<CounterDocument>;

  constructor(db: Db, collectionName = 'commits') {
    this.commits = db.collection<CommitDocument>(collectionName);
    this.heads = db.collection<HeadDocument>(`${collectionName}_heads`);
    this.journal = db.collection<JournalDocument>(`${collectionName}_journal`);
    this.counters = db.collection<CounterDocument>(`${collectionName}_counters`);
  }

  async ensureIndexes(): Promise<void> {
    // Also unique for commits written before the `_id` named the stream position.
    await this.commits.createIndex({ streamId: 1, startVersion: 1 }, { unique: true, name: 'stream_position' });
  }

  /**
   * The saved head, then every commit after it found by `_id` (usually none, or the few appended
   * since the last save). After a conflict, also the indexed query, which on FerretDB scans but
   * finds streams written before heads were saved.
   */
  async readHead(streamId: string, options: ReadHeadOptions = {}): Promise<StreamHead | null> {
    const saved = options.after ? null : await this.heads.findOne({ _id: streamId });
    let head: StreamHead | null =
      options.after ?? (saved ? { version: saved.version, ...(saved.snapshot ? { snapshot: JSON.parse(saved.snapshot) as Snapshot } : {}) } : null);
    if (options.thorough) {
      const last = await this.commits.findOne({ streamId }, { sort: { startVersion: -1 }, projection: { endVersion: 1, snapshot: 1 } });
      if (last && last.endVersion > (head?.version ?? 0)) head = headOf(last);
    }
    for (;;) {
      const next = await this.commits.findOne({ _id: commitKey(streamId, (head?.version ?? 0) + 1) }, { projection: { endVersion: 1, snapshot: 1 } });
      if (!next) return head;
      head = headOf(next);
    }
  }

  async readStream(streamId: string): Promise<EventEnvelope[]> {
    const commits = await this.commits
      .find({ streamId }, { projection: { events: 1 } })
      .sort({ startVersion: 1 })
      .toArray();
    return commits.flatMap((c) => JSON.parse(c.events) as EventEnvelope[]);
  }

  async commitsStartingBetween(streamId: string, fromVersion: number, toVersion: number): Promise<EventEnvelope[]> {
    if (toVersion < fromVersion) return [];
    const keys = Array.from({ length: toVersion - fromVersion + 1 }, (_, index) => commitKey(streamId, fromVersion + index));
    const found = await findByIds(this.commits, keys, { events: 1, startVersion: 1 });
    return [...found.values()].sort((a, b) => a.startVersion - b.startVersion).flatMap((c) => JSON.parse(c.events) as EventEnvelope[]);
  }

  /**
   * A stream's commits in version order from the one starting at `from` (a commit's first version),
   * read lazily for time-travel reads (ADR 0033): fetched by `_id` (the only look-up FerretDB v1
   * serves from an index), several probable keys at a time in parallel (8, doubling up to 64), since
   * most commits hold one event. The caller stops iterating at its bound.
   */
  async *streamCommits(streamId: string, from = 1): AsyncGenerator<{ endVersion: number; events: EventEnvelope[] }> {
    let next = from;
    let probes = new Map<number, CommitDocument | null>();
    // Short streams (a user's marks, pins) cost a few look-ups; long ones read ever wider windows.
    let window = 4;
    for (;;) {
      if (!probes.has(next)) {
        window = Math.min(window * 2, 64);
        const keys = Array.from({ length: window }, (_, index) => next + index);
        const found = await findByIds(this.commits, keys.map((version) => commitKey(streamId, version)));
        probes = new Map(keys.map((version) => [version, found.get(commitKey(streamId, version)) ?? null]));
      }
      const commit = probes.get(next);
      if (!commit) return;
      yield { endVersion: commit.endVersion, events: JSON.parse(commit.events) as EventEnvelope[] };
      next = commit.endVersion + 1;
    }
  }

  /** A stream's events in version order (see `streamCommits`). */
  async *streamEvents(streamId: string): AsyncGenerator<EventEnvelope> {
    for await (const commit of this.streamCommits(streamId)) yield* commit.events;
  }

  async appendBatch(batch: AppendBatch): Promise<AppendResult[]> {
    if (batch.commits.length === 0) return [];
    await this.journal.insertOne({
      _id: batch.position,
      commits: batch.commits.map((c) => commitKey(c.streamId, c.startVersion)),
      writtenAt: new Date(),
    });
    const documents: CommitDocument[] = batch.commits.map((commit) => ({
      _id: commitKey(commit.streamId, commit.startVersion),
      commitId: commit.commitId,
      appId: commit.appId,
      streamId: commit.streamId,
      startVersion: commit.startVersion,
      endVersion: commit.endVersion,
      position: commit.position,
      events: JSON.stringify(commit.events),
      ...(commit.snapshot ? { snapshot: JSON.stringify(commit.snapshot) } : {}),
      committedAt: commit.committedAt,
    }));
    const results: AppendResult[] = documents.map(() => 'appended');
    try {
      await this.commits.insertMany(documents, { ordered: false });
    } catch (error) {
      const failures = writeErrorsOf(error);
      // No write errors: the connection failed under the insert (the driver reports that as a bulk
      // error too), not a race. What landed is found by `_id` and told apart by commit id.
      if (failures && failures.length === 0) return this.settleUncertain(documents);
      if (!failures) throw error;
      for (const failure of failures) {
        if (failure.code !== 11000) throw error;
        results[failure.index] = 'conflict';
      }
    }
    return results;
  }

  /**
   * After an insert the connection was lost under: each commit is ours if stored with our commit id,
   * another writer's race if stored with another, and inserted again if absent. A store still away
   * throws, and the batch stays uncertain for the caller (503; the outbox reads it back from the journal).
   */
  private async settleUncertain(documents: readonly CommitDocument[]): Promise<AppendResult[]> {
    const stored = await findByIds(this.commits, documents.map((document) => document._id), { commitId: 1 });
    return Promise.all(
      documents.map(async (document): Promise<AppendResult> => {
        const found = stored.get(document._id);
        if (found) return found.commitId === document.commitId ? 'appended' : 'conflict';
        try {
          await this.commits.insertOne(document);
          return 'appended';
        } catch (error) {
          if (!isDuplicateKeyError(error)) throw error;
          const again = await this.commits.findOne({ _id: document._id }, { projection: { commitId: 1 } });
          return again?.commitId === document.commitId ? 'appended' : 'conflict';
        }
      }),
    );
  }

  async saveHeads(heads: ReadonlyMap<string, StreamHead>): Promise<void> {
    const operations: AnyBulkWriteOperation<HeadDocument>[] = [...heads].map(([streamId, head]) => ({
      replaceOne: {
        filter: { _id: streamId },
        replacement: { version: head.version, ...(head.snapshot ? { snapshot: JSON.stringify(head.snapshot) } : {}) },
        upsert: true,
      },
    }));
    await bulkWriteChunked(this.heads, operations, { ordered: false });
  }

  async reservePositions(count: number): Promise<number> {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const doc = await this.counters.findOneAndUpdate(
          { _id: 'positions' },
          { $inc: { value: count } },
          { upsert: true, returnDocument: 'after' },
        );
        if (doc) return doc.value - count + 1;
      } catch (error) {
        // Two first reservations may both try to create the counter.
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
    throw new Error('could not reserve commit positions');
  }

  async unpublished(only?: readonly number[]): Promise<JournalEntry[]> {
    if (only?.length === 0) return [];
    const entries = await this.journal.find(only ? { _id: { $in: [...only] } } : {}).toArray();
    return this.withCommits(entries, () => true);
  }

  /** Reads the whole journal: it holds only the last moments' batches (trimmed twice a second). */
  async unpublishedBefore(streams: ReadonlyMap<string, number>): Promise<JournalEntry[]> {
    if (streams.size === 0) return [];
    const entries = await this.journal.find({}).toArray();
    const entriesWith = await this.withCommits(entries, (key) => {
      const at = key.lastIndexOf('@');
      const bound = streams.get(key.slice(0, at));
      return bound !== undefined && Number(key.slice(at + 1)) < bound;
    });
    return entriesWith.filter((entry) => entry.commits.length > 0);
  }

  async releaseEntries(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.journal.deleteMany({ _id: { $in: [...ids] } });
  }

  /** The entries by id, each with the stored commits among its keys that `wanted` keeps (read by `_id`). */
  private async withCommits(entries: readonly JournalDocument[], wanted: (key: string) => boolean): Promise<JournalEntry[]> {
    const sorted = [...entries].sort((a, b) => a._id - b._id);
    const stored = await findByIds(this.commits, sorted.flatMap((entry) => entry.commits.filter(wanted)));
    return sorted.map((entry) => {
      const looked = entry.commits.filter(wanted);
      const commits = looked.flatMap((key) => stored.get(key) ?? []).map(commitOf);
      return {
        id: entry._id,
        commits: commits.sort((a, b) => a.position - b.position),
        // Known only when every listed commit was looked for.
        complete: looked.length === entry.commits.length && commits.length === looked.length,
        ...(entry.writtenAt ? { writtenAt: entry.writtenAt } : {}),
      };
    });
  }

  /** Every event of the store in commit order, for rebuilding a read model from scratch. */
  async *allEvents(): AsyncGenerator<EventEnvelope> {
    for await (const commit of this.commits.find({}).sort({ committedAt: 1, startVersion: 1 })) {
      for (const event of JSON.parse(commit.events) as EventEnvelope[]) yield event;
    }
  }
}

function writeErrorsOf(error: unknown): { index: number; code: number }[] | null {
  if (typeof error !== 'object' || error === null || !('writeErrors' in error)) return null;
  const raw = (error).writeErrors;
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((e: { index?: number; code?: number; err?: { index?: number; code?: number } }) => ({
    index: e.index ?? e.err?.index ?? -1,
    code: e.code ?? e.err?.code ?? 0,
  }));
}
