import type { EventEnvelope } from '@chat/contracts';
import type { AppendResult, Commit, CommitStore, Snapshot, StreamHead } from '@chat/eventsourcing';
import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from './connect.js';

/**
 * Events and snapshots are stored as JSON text: user-supplied payloads may hold keys with dots or
 * a leading `$`, and nested arrays, none of which FerretDB v1 accepts inside a document (ADR 0002).
 * The store never queries inside an event, so nothing is lost.
 */
interface CommitDocument {
  _id: string;
  appId: string;
  streamId: string;
  startVersion: number;
  endVersion: number;
  events: string;
  snapshot?: string;
  committedAt: Date;
  published: boolean;
}

export class MongoCommitStore implements CommitStore {
  private readonly commits: Collection<CommitDocument>;

  constructor(db: Db, collectionName = 'commits') {
    this.commits = db.collection<CommitDocument>(collectionName);
  }

  async ensureIndexes(): Promise<void> {
    await this.commits.createIndex({ streamId: 1, startVersion: 1 }, { unique: true, name: 'stream_position' });
    await this.commits.createIndex({ published: 1, committedAt: 1 }, { name: 'unpublished' });
  }

  async readHead(streamId: string): Promise<StreamHead | null> {
    const last = await this.commits.findOne(
      { streamId },
      { sort: { startVersion: -1 }, projection: { endVersion: 1, snapshot: 1 } },
    );
    if (!last) return null;
    return {
      version: last.endVersion,
      ...(last.snapshot ? { snapshot: JSON.parse(last.snapshot) as Snapshot } : {}),
    };
  }

  async readStream(streamId: string): Promise<EventEnvelope[]> {
    const commits = await this.commits
      .find({ streamId }, { projection: { events: 1 } })
      .sort({ startVersion: 1 })
      .toArray();
    return commits.flatMap((c) => JSON.parse(c.events) as EventEnvelope[]);
  }

  async append(commit: Commit): Promise<AppendResult> {
    try {
      await this.commits.insertOne({
        _id: commit.commitId,
        appId: commit.appId,
        streamId: commit.streamId,
        startVersion: commit.startVersion,
        endVersion: commit.endVersion,
        events: JSON.stringify(commit.events),
        ...(commit.snapshot ? { snapshot: JSON.stringify(commit.snapshot) } : {}),
        committedAt: commit.committedAt,
        published: commit.published,
      });
      return 'appended';
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'conflict';
      throw error;
    }
  }

  async markPublished(commitId: string): Promise<void> {
    await this.commits.updateOne({ _id: commitId }, { $set: { published: true } });
  }

  async findUnpublished(committedBefore: Date, limit: number): Promise<Commit[]> {
    const docs = await this.commits
      .find({ published: false, committedAt: { $lt: committedBefore } })
      .sort({ committedAt: 1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => ({
      commitId: d._id,
      appId: d.appId,
      streamId: d.streamId,
      startVersion: d.startVersion,
      endVersion: d.endVersion,
      events: JSON.parse(d.events) as EventEnvelope[],
      ...(d.snapshot ? { snapshot: JSON.parse(d.snapshot) as Snapshot } : {}),
      committedAt: d.committedAt,
      published: d.published,
    }));
  }

  /** Every event of an app's streams in commit order, for rebuilding a read model from scratch. */
  async *allEvents(): AsyncGenerator<EventEnvelope> {
    for await (const commit of this.commits.find({}).sort({ committedAt: 1, startVersion: 1 })) {
      for (const event of JSON.parse(commit.events) as EventEnvelope[]) yield event;
    }
  }
}
