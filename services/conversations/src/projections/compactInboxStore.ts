import { userConversationId } from '@chat/contracts';
import type { DocumentStore, GuardedWrite, StoredRecord } from '@chat/mongo';
import type { InboxDoc, InboxEntry } from '../domain/inbox.js';

/** An inbox entry as stored: `[peer, message id, sentAt]`, with a fourth element 1 when it is counted in `started`. */
type CompactEntry = [p: string, i: number, t: number, s?: 1];

const ENTRY_FIELDS = new Set(['c', 'p', 'i', 't', 's']);

function compactEntry(owner: string, entry: InboxEntry): CompactEntry | InboxEntry {
  // Only an entry whose conversation id follows from its peer loses the id; any other stays as it is.
  if (entry.c !== userConversationId(owner, entry.p) || Object.keys(entry).some((key) => !ENTRY_FIELDS.has(key))) return entry;
  return entry.s === 1 ? [entry.p, entry.i, entry.t, 1] : [entry.p, entry.i, entry.t];
}

function fullEntry(owner: string, stored: CompactEntry | InboxEntry): InboxEntry {
  if (!Array.isArray(stored)) return stored;
  const [p, i, t, s] = stored;
  return { c: userConversationId(owner, p), p, i, t, ...(s === 1 ? { s } : {}) };
}

function mapRecent(document: StoredRecord, map: (owner: string, entry: never) => unknown): StoredRecord {
  const inbox = document as unknown as InboxDoc;
  if (!Array.isArray(inbox.recent)) return document;
  return { ...document, recent: inbox.recent.map((entry) => map(inbox.owner, entry as never)) };
}

/**
 * The inboxes with their one-on-one entries stored as `[peer, id, sentAt]`: every one-on-one message
 * rewrites both participants' inboxes, up to INBOX_SIZE entries each, and FerretDB's cost of a rewrite
 * grows with the document (ADR 0048: a 20 KB replace holds the write lock about four times as long as
 * a 2.5 KB one). The conversation id follows from the owner and the peer, so it is not stored; the
 * fold and every reader see the entries as `domain/inbox.ts` makes them. Stored entries of either
 * shape are read (documents written before this store).
 */
export class CompactInboxStore implements DocumentStore {
  constructor(private readonly inner: DocumentStore) {}

  async findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    const found = await this.inner.findMany(ids);
    return new Map([...found].map(([id, document]) => [id, mapRecent(document, fullEntry)]));
  }

  insert(documents: readonly StoredRecord[]): Promise<string[]> {
    return this.inner.insert(documents.map((document) => mapRecent(document, compactEntry)));
  }

  writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    return this.inner.writeGuarded(writes.map((write) => (write.kind === 'replace' ? { ...write, document: mapRecent(write.document, compactEntry) } : write)));
  }
}
