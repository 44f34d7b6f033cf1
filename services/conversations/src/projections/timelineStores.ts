import type { DocumentStore, GuardedWrite, StoredRecord } from '@chat/mongo';
import { historyChunkId } from '../domain/conversationTimeline.js';
import type { TimelineChunk, TimelineDoc } from '../domain/conversationTimeline.js';

/** A sealed chunk as stored in the history collection: immutable, so it carries no guard of its own. */
export interface HistoryChunkDoc extends TimelineChunk {
  appId: string;
  conversationId: string;
}

/**
 * The timeline collection behind the runtime's port, storing every sealed chunk in the history
 * collection before the timeline document that sealed it. The chunk's content depends only on the
 * conversation's message stream, so whichever writer stores it first (the consumer or a replay, or a
 * writer that then loses its compare-and-set) stores the same chunk and the others' inserts are
 * duplicates; a crash after the chunk and before the timeline leaves a chunk the redelivery seals
 * again. This is not a second guard: the runtime's guard still decides every timeline write.
 */
export class SealingTimelineStore implements DocumentStore {
  /** Chunks this process knows are stored: a write that carries one of them stores nothing more. */
  private readonly stored = new Set<string>();

  constructor(
    private readonly timelines: DocumentStore,
    private readonly history: DocumentStore,
  ) {}

  findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    return this.timelines.findMany(ids);
  }

  async insert(documents: readonly StoredRecord[]): Promise<string[]> {
    await this.seal(documents);
    return this.timelines.insert(documents.map(withoutEarlierSeals));
  }

  async writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    await this.seal(writes.flatMap((write) => (write.kind === 'replace' ? [write.document] : [])));
    return this.timelines.writeGuarded(writes.map((write) => (write.kind === 'replace' ? { ...write, document: withoutEarlierSeals(write.document) } : write)));
  }

  private async seal(documents: readonly StoredRecord[]): Promise<void> {
    const chunks: StoredRecord[] = [];
    for (const document of documents) {
      const timeline = document as unknown as TimelineDoc;
      const carried = timeline.sealed ? [...(timeline.sealedEarlier ?? []), timeline.sealed] : (timeline.sealedEarlier ?? []);
      // Newest first, up to one this process stored: the chunks before it were stored with it or before
      // it (a write stores every chunk it carries, and a document carries every chunk not stored yet), so
      // a timeline that keeps the chunks its fold sealed (up to SEALS_KEPT) is not walked again per message.
      const unstored: StoredRecord[] = [];
      for (let at = carried.length - 1; at >= 0; at--) {
        const sealed = carried[at]!;
        const id = historyChunkId(timeline.appId, timeline.conversationId, sealed.k);
        if (this.stored.has(id)) break;
        const chunk: HistoryChunkDoc = { appId: timeline.appId, conversationId: timeline.conversationId, ...sealed };
        unstored.push({ ...chunk, _id: id, _positions: {}, _rev: 1 });
      }
      chunks.push(...unstored.reverse());
    }
    if (chunks.length === 0) return;
    // A duplicate is a chunk another writer stored first, with the same content.
    await this.history.insert(chunks);
    for (const chunk of chunks) this.remember(chunk._id);
  }

  private remember(id: string): void {
    this.stored.add(id);
    // Only the newest chunk of each timeline is ever carried again; old ids need not be kept forever.
    if (this.stored.size > 100_000) this.stored.clear();
  }
}

/** The timeline as stored: the earlier sealed chunks are in the history by now. */
function withoutEarlierSeals(document: StoredRecord): StoredRecord {
  if (!('sealedEarlier' in document)) return document;
  const stored = { ...document };
  delete stored['sealedEarlier'];
  return stored;
}

/**
 * Stores the named fields as JSON text. FerretDB v1 encodes and decodes every nested document of a
 * field on each read and write (ADR 0006); a string costs it nearly nothing, and no query filters on
 * these fields.
 */
export class TextFieldsStore implements DocumentStore {
  constructor(
    private readonly inner: DocumentStore,
    private readonly fields: readonly string[],
  ) {}

  async findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    const found = await this.inner.findMany(ids);
    return new Map([...found].map(([id, document]) => [id, this.decode(document)]));
  }

  insert(documents: readonly StoredRecord[]): Promise<string[]> {
    return this.inner.insert(documents.map((document) => this.encode(document)));
  }

  writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    return this.inner.writeGuarded(writes.map((write) => (write.kind === 'replace' ? { ...write, document: this.encode(write.document) } : write)));
  }

  encode(document: StoredRecord): StoredRecord {
    const stored: StoredRecord = { ...document };
    for (const field of this.fields) {
      if (stored[field] !== undefined) stored[field] = JSON.stringify(stored[field]);
    }
    return stored;
  }

  decode(stored: StoredRecord): StoredRecord {
    const document: StoredRecord = { ...stored };
    for (const field of this.fields) {
      const text = document[field];
      if (typeof text === 'string') document[field] = JSON.parse(text) as unknown;
    }
    return document;
  }
}
