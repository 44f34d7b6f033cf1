import type { DocumentStore, GuardedWrite, StoredRecord } from '@chat/mongo';
import { listedLastMessage } from '../domain/conversationTimeline.js';
import type { TimelineDoc } from '../domain/conversationTimeline.js';

/** A stored timeline with the list's copy of its last message put back. */
export function withListedLastMessage(document: StoredRecord): StoredRecord {
  const { lastMessage, ...rest } = document;
  void lastMessage;
  const derived = listedLastMessage(document as unknown as TimelineDoc)?.message;
  return derived === undefined ? rest : { ...rest, lastMessage: derived };
}

function withoutListedLastMessage(document: StoredRecord): StoredRecord {
  if (!('lastMessage' in document)) return document;
  const { lastMessage, ...rest } = document;
  void lastMessage;
  return rest;
}

/**
 * The timeline collection without the list's copy of the last message: every message rewrites the
 * timeline, and FerretDB's cost of a rewrite grows with the document (ADR 0048), so the message is
 * stored once (in `last`) and the copy is derived again when read. Wraps the text-field store: it
 * sees documents as the fold makes them.
 */
export class ListCopyOnReadStore implements DocumentStore {
  constructor(private readonly inner: DocumentStore) {}

  async findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    const found = await this.inner.findMany(ids);
    return new Map([...found].map(([id, document]) => [id, withListedLastMessage(document)]));
  }

  insert(documents: readonly StoredRecord[]): Promise<string[]> {
    return this.inner.insert(documents.map(withoutListedLastMessage));
  }

  writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    return this.inner.writeGuarded(writes.map((write) => (write.kind === 'replace' ? { ...write, document: withoutListedLastMessage(write.document) } : write)));
  }
}
