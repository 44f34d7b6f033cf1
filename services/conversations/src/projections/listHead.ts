import type { UserConversationDoc } from '../domain/conversationView.js';

/** How many of a user's most recent conversations the head keeps in order. */
export const HEAD_SIZE = 500;

export interface HeadEntry {
  conversationId: string;
  updatedAt: number;
  lastMessageSeq: number;
}

/**
 * The start of one user's conversation list, kept in order by the projection: their listed
 * conversation count, the most recent HEAD_SIZE of them by last activity, and their own pins. A
 * list page inside the head is served with reads by id only, whatever the user's number of
 * conversations (FerretDB v1 pushes nothing but `_id` equality down to SQLite, so any other query
 * reads the whole collection). `entries` is always a correct prefix of the order; it may be shorter
 * than HEAD_SIZE after conversations left it, and the query path serves what lies beyond it.
 */
export interface ListHeadDoc {
  appId: string;
  owner: string;
  total: number;
  entries: HeadEntry[];
  pins: Array<{ conversationId: string; pinOrder: number }>;
}

export function listHeadDocId(appId: string, owner: string): string {
  return `${appId}:${owner}`;
}

/** Newest first: by last activity, then by message id (ids grow per app). */
export function compareEntries(a: HeadEntry, b: HeadEntry): number {
  return b.updatedAt - a.updatedAt || b.lastMessageSeq - a.lastMessageSeq || a.conversationId.localeCompare(b.conversationId);
}

/**
 * The head after one conversation's document reached `doc` (null: gone). `listedDelta` is the change
 * of that conversation's listed state made by the write that caused this update (counts commute, so
 * concurrent updates add up right); the entry and pin are taken from the document as it is now.
 */
export function updateListHead(
  head: ListHeadDoc | null,
  ids: { appId: string; owner: string; conversationId: string },
  doc: UserConversationDoc | null,
  listedDelta: number,
  size = HEAD_SIZE,
): ListHeadDoc {
  const base: ListHeadDoc = head ?? { appId: ids.appId, owner: ids.owner, total: 0, entries: [], pins: [] };
  const total = Math.max(0, base.total + listedDelta);
  const wasComplete = base.entries.length >= base.total;
  const entries = base.entries.filter((e) => e.conversationId !== ids.conversationId);
  if (doc?.listed) {
    const entry: HeadEntry = { conversationId: ids.conversationId, updatedAt: doc.updatedAt, lastMessageSeq: doc.lastMessageSeq };
    const last = entries.at(-1);
    // Behind the kept prefix's last entry it may only enter while the head holds every conversation:
    // otherwise conversations that are not in the head could come between.
    const fits = wasComplete || (last !== undefined && compareEntries(entry, last) < 0);
    if (fits) {
      entries.push(entry);
      entries.sort(compareEntries);
    }
  }
  const pins = base.pins.filter((p) => p.conversationId !== ids.conversationId);
  if (doc?.pinnedAt !== undefined && doc.pinOrder !== undefined) pins.push({ conversationId: ids.conversationId, pinOrder: doc.pinOrder });
  pins.sort((a, b) => b.pinOrder - a.pinOrder);
  return { ...base, total, entries: entries.slice(0, size), pins };
}
