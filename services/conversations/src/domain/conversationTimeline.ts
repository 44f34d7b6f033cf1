import type { ConversationDeleted, GroupUpdated, MessageDeleted, MessageEdited, MessageSent } from '@chat/contracts';
import type { ConversationType, ConversationGroup } from './conversationView.js';

/**
 * A conversation's own timeline, as counters instead of a ledger: what every reader of the
 * conversation shares, kept by one pure fold of the conversation's message stream (plus the group's
 * profile and the "deleted for everyone" mark). A message appends one small entry to the open chunk;
 * every CHUNK_SIZE entries the chunk is sealed (immutable from then on, stored once in the history
 * collection) and a new one opens with the running totals. So the document a message rewrites stays
 * small whatever the history's length, and any reader can still find the totals at any position
 * (`unreadCount.ts`): exact unread counts without a cap.
 */

/**
 * Entries per chunk: a sealed chunk is one small immutable document. Every message rewrites the
 * timeline document, which holds up to twice this many entries, and FerretDB's cost of a rewrite grows
 * with the document: 16 (was 64, then 32; ADR 0048) for one more small insert per 16 messages and one
 * more step in a reader's search of old chunks. A timeline keeps the size it was created with (`chunkSize`).
 */
export const CHUNK_SIZE = 16;

/** Earlier sealed chunks a document carries until it is written: a handler call's 500 events seal at most 32. */
const SEALS_KEPT = 32;

/** One message of the conversation's own timeline (thread replies are not part of it). */
export interface TimelineEntry {
  /** Message id: ids grow per app, and within one conversation stream they grow with its order. */
  i: number;
  /** Sender uid. */
  s: string;
  /**
   * Effective time (ms): the latest `occurredAt` of the timeline up to this entry. Monotone along the
   * timeline, so a membership interval (in `occurredAt` ms) is one range of positions.
   */
  e: number;
  /** `sentAt` (s). */
  t: number;
  /** `category: action` (group notices): shown as last message, never unread. */
  a?: 1;
}

/** Running totals of the timeline up to some position. */
export interface TimelineTotals {
  /** Entries. */
  n: number;
  /** Countable entries (not actions); deletions are kept apart, so totals only grow. */
  c: number;
  /** Countable entries per sender: one-on-one conversations only (two keys); groups scan entries instead. */
  by: Record<string, number>;
}

/** Entries `k * size + 1 …` of the timeline, with the totals before the first of them. */
export interface TimelineChunk {
  k: number;
  before: TimelineTotals;
  entries: TimelineEntry[];
}

/** The newest message that is not permanently deleted, as the API shows it (JSON text, ADR 0002). */
export interface LastMessage {
  id: number;
  sentAt: number;
  /** Absent when it became the last through a permanent deletion: read it from the message copies. */
  message?: string;
}

export interface TimelineDoc {
  appId: string;
  conversationId: string;
  conversationType: ConversationType;
  /** Entries per chunk, fixed when the timeline began (positions are computed from it). */
  chunkSize: number;
  /** The two users of a one-on-one conversation, sorted. */
  participants?: string[];
  group?: ConversationGroup;
  groupDeleted?: boolean;
  /** Entries not sealed yet (fewer than the chunk size). */
  open: TimelineChunk;
  /** The newest sealed chunk, kept until the next one is sealed: recent positions need no history read. */
  sealed?: TimelineChunk;
  /**
   * Chunks sealed before `sealed` that may not be stored yet: one fold of a long run of messages (a
   * backlog after an outage) seals several chunks before the document is written, and each must reach
   * the history. Never stored with the document (the store strips it once the chunks are stored);
   * only the last SEALS_KEPT are kept, as many as one handler call's events can seal.
   */
  sealedEarlier?: TimelineChunk[];
  /** Totals over the whole timeline. */
  totals: TimelineTotals;
  /** The effective time of the newest entry (ms). */
  e: number;
  /** Smallest `sentAt` of the timeline's messages (s). */
  firstSentAt?: number;
  last?: LastMessage;
  /** Deleted messages of the conversation, soft and permanent (ids; grows with deletions, not messages). */
  deletedSoft: number[];
  deletedPermanently: number[];
  /** Deleted for every participant up to this message id. */
  clearedUpTo: number;
  // The app-wide list's fields (no reader): derived from the above on every change.
  listed: boolean;
  lastMessage?: string;
  lastMessageSeq: number;
  createdAt: number;
  updatedAt: number;
}

export function timelineDocId(appId: string, conversationId: string): string {
  return `${appId}:${conversationId}`;
}

export function historyChunkId(appId: string, conversationId: string, k: number): string {
  return `${appId}:${conversationId}:${k}`;
}

export function messageIdNumber(raw: string): number {
  return Number(raw) || 0;
}

/** Events are immutable once decoded: the timeline and the message copy of one event share its text. */
const shownTexts = new WeakMap<MessageSent, string>();

export function messageAsShown(message: MessageSent): string {
  let shown = shownTexts.get(message);
  if (shown === undefined) {
    shown = shownText(message);
    shownTexts.set(message, shown);
  }
  return shown;
}

function shownText(message: MessageSent): string {
  return JSON.stringify({
    id: message.id,
    conversationId: message.conversationId,
    sender: message.sender,
    receiverType: message.receiverType,
    receiver: message.receiver,
    category: message.category,
    type: message.type,
    data: message.data,
    ...(message.tags ? { tags: message.tags } : {}),
    ...(message.muid !== undefined ? { muid: message.muid } : {}),
    sentAt: message.sentAt,
    updatedAt: message.sentAt,
  });
}

/** A message shown after an edit. */
export function editedMessage(message: string, edit: MessageEdited): string {
  const { data, tags, editedAt, editedBy } = edit;
  return patchMessage(message, { data, ...(tags ? { tags } : {}), editedAt, ...(editedBy ? { editedBy } : {}), updatedAt: editedAt });
}

/** A message shown after a soft deletion. */
export function softDeletedMessage(message: string, deletion: MessageDeleted): string {
  const { deletedAt, deletedBy } = deletion;
  return patchMessage(message, { deletedAt, ...(deletedBy ? { deletedBy } : {}), updatedAt: deletedAt });
}

function patchMessage(message: string, patch: Record<string, unknown>): string {
  return JSON.stringify({ ...(JSON.parse(message) as Record<string, unknown>), ...patch });
}

const NO_TOTALS: TimelineTotals = { n: 0, c: 0, by: {} };

export function emptyTimeline(appId: string, conversationId: string, conversationType: ConversationType, at: number, chunkSize = CHUNK_SIZE): TimelineDoc {
  return {
    appId,
    conversationId,
    conversationType,
    chunkSize,
    open: { k: 0, before: NO_TOTALS, entries: [] },
    totals: NO_TOTALS,
    e: 0,
    deletedSoft: [],
    deletedPermanently: [],
    clearedUpTo: 0,
    listed: false,
    lastMessageSeq: 0,
    createdAt: at,
    updatedAt: at,
  };
}

/** Entries still in the document (the newest sealed chunk and the open one), oldest first. */
export function recentEntries(doc: TimelineDoc): TimelineEntry[] {
  return [...(doc.sealed?.entries ?? []), ...doc.open.entries];
}

function newestEntryId(doc: TimelineDoc): number {
  return doc.open.entries.at(-1)?.i ?? doc.sealed?.entries.at(-1)?.i ?? 0;
}

function appendEntry(doc: TimelineDoc, entry: TimelineEntry): TimelineDoc {
  const countable = entry.a === undefined;
  const by = countable && doc.conversationType === 'user' ? { ...doc.totals.by, [entry.s]: (doc.totals.by[entry.s] ?? 0) + 1 } : doc.totals.by;
  const totals: TimelineTotals = { n: doc.totals.n + 1, c: doc.totals.c + (countable ? 1 : 0), by };
  const open: TimelineChunk = { ...doc.open, entries: [...doc.open.entries, entry] };
  if (open.entries.length < doc.chunkSize) return { ...doc, open, totals, e: entry.e };
  const sealedEarlier = doc.sealed ? [...(doc.sealedEarlier ?? []), doc.sealed].slice(-SEALS_KEPT) : doc.sealedEarlier;
  return {
    ...doc,
    sealed: open,
    ...(sealedEarlier ? { sealedEarlier } : {}),
    open: { k: open.k + 1, before: totals, entries: [] },
    totals,
    e: entry.e,
  };
}

/**
 * The newest entry that is not permanently deleted, among the entries the document still holds;
 * undefined when every one of them is gone (the readers' derivation, which reads the history, still
 * finds it).
 */
function lastStanding(doc: TimelineDoc): LastMessage | undefined {
  const gone = new Set(doc.deletedPermanently);
  const entry = recentEntries(doc).findLast((e) => !gone.has(e.i));
  if (!entry) return undefined;
  return entry.i === doc.last?.id ? doc.last : { id: entry.i, sentAt: entry.t };
}

/** The app-wide list's last message: `last`, unless the conversation was deleted for everyone past it. */
export function listedLastMessage(doc: Pick<TimelineDoc, 'last' | 'clearedUpTo'>): LastMessage | undefined {
  return doc.last && doc.last.id > doc.clearedUpTo ? doc.last : undefined;
}

/** The app-wide list's fields, recomputed so they never depend on arrival order. */
function summarize(doc: TimelineDoc): TimelineDoc {
  const { lastMessage, ...rest } = doc;
  void lastMessage;
  const last = listedLastMessage(doc);
  const createdAt = doc.conversationType === 'group' ? (doc.group?.createdAt ?? doc.createdAt) : (doc.firstSentAt ?? doc.createdAt);
  return {
    ...rest,
    ...(last?.message !== undefined ? { lastMessage: last.message } : {}),
    lastMessageSeq: last?.id ?? 0,
    createdAt,
    updatedAt: last ? last.sentAt : createdAt,
    listed: doc.conversationType === 'group' ? doc.group !== undefined && doc.groupDeleted !== true : last !== undefined,
  };
}

function applyGroupUpdate(group: ConversationGroup, update: GroupUpdated): ConversationGroup {
  const { changes } = update;
  const next: ConversationGroup = { ...group, updatedAt: update.updatedAt };
  if (changes.name !== undefined) next.name = changes.name;
  if (changes.type !== undefined) next.type = changes.type;
  if (changes.owner !== undefined) next.owner = changes.owner;
  if (changes.icon !== undefined) next.icon = changes.icon;
  if (changes.description !== undefined) next.description = changes.description;
  if (changes.tags !== undefined) next.tags = changes.tags;
  if (update.updatedBy !== undefined) next.updatedBy = update.updatedBy;
  for (const field of update.removed) {
    if (field === 'icon') delete next.icon;
    if (field === 'description') delete next.description;
    if (field === 'tags') next.tags = [];
  }
  return next;
}

function withMembersCount(doc: TimelineDoc, delta: number): TimelineDoc {
  if (!doc.group) return doc;
  return { ...doc, group: { ...doc.group, membersCount: Math.max(0, doc.group.membersCount + delta) } };
}

/** A message appended to the timeline (thread replies are not). `occurredAtMs` is its envelope's. */
export function withMessage(current: TimelineDoc | null, appId: string, message: MessageSent, occurredAtMs: number, chunkSize = CHUNK_SIZE): TimelineDoc | null {
  if (message.parentId !== undefined) return current;
  const id = messageIdNumber(message.id);
  const base = current ?? emptyTimeline(appId, message.conversationId, message.receiverType, message.sentAt, chunkSize);
  // Ids grow along the stream; one at or below the newest is a message this fold already holds.
  if (id <= newestEntryId(base)) return base;
  const entry: TimelineEntry = {
    i: id,
    s: message.sender,
    e: Math.max(base.e, occurredAtMs),
    t: message.sentAt,
    ...(message.category === 'action' ? { a: 1 as const } : {}),
  };
  const participants = message.receiverType === 'user' ? [message.sender, message.receiver].sort() : base.participants;
  const typed: TimelineDoc = { ...base, conversationType: message.receiverType, ...(participants ? { participants } : {}) };
  return summarize({
    ...appendEntry(typed, entry),
    firstSentAt: Math.min(base.firstSentAt ?? message.sentAt, message.sentAt),
    last: { id, sentAt: message.sentAt, message: messageAsShown(message) },
  });
}

export function withEdit(current: TimelineDoc | null, edit: MessageEdited): TimelineDoc | null {
  if (!current?.last || current.last.id !== messageIdNumber(edit.id) || current.last.message === undefined) return current;
  return summarize({ ...current, last: { ...current.last, message: editedMessage(current.last.message, edit) } });
}

export function withDeletion(current: TimelineDoc | null, deletion: MessageDeleted): TimelineDoc | null {
  if (!current) return null;
  const id = messageIdNumber(deletion.id);
  const recent = recentEntries(current);
  // A deletion inside the held entries that names no entry is a thread reply's: nothing to count.
  if (recent.length > 0 && id >= recent[0]!.i && !recent.some((e) => e.i === id)) return current;
  if (deletion.permanent) {
    const deletedPermanently = current.deletedPermanently.includes(id) ? current.deletedPermanently : [...current.deletedPermanently, id];
    const next = { ...current, deletedPermanently, deletedSoft: current.deletedSoft.filter((d) => d !== id) };
    if (current.last?.id !== id) return summarize(next);
    const { last, ...rest } = next;
    void last;
    const standing = lastStanding(next);
    return summarize({ ...rest, ...(standing ? { last: standing } : {}) });
  }
  if (current.deletedSoft.includes(id) || current.deletedPermanently.includes(id)) return current;
  const last = current.last?.id === id && current.last.message !== undefined ? { ...current.last, message: softDeletedMessage(current.last.message, deletion) } : current.last;
  return summarize({ ...current, deletedSoft: [...current.deletedSoft, id], ...(last ? { last } : {}) });
}

/**
 * The conversation deleted for everyone up to a message. Also before any of its messages is here:
 * the deletion comes on another topic than the messages (e.g. first, in a rebuild) and must still
 * clear them when they arrive.
 */
export function withClearedUpTo(current: TimelineDoc | null, appId: string, deletion: ConversationDeleted, chunkSize = CHUNK_SIZE): TimelineDoc {
  const base = current ?? emptyTimeline(appId, deletion.conversationId, deletion.conversationType, deletion.deletedAt, chunkSize);
  return summarize({ ...base, clearedUpTo: Math.max(base.clearedUpTo, messageIdNumber(deletion.upToMessageId)) });
}

export type GroupChange =
  | { kind: 'created'; group: ConversationGroup }
  | { kind: 'updated'; update: GroupUpdated }
  | { kind: 'deleted' }
  | { kind: 'members'; delta: number };

/** The group's profile and member count; the timeline document is created by whichever comes first. */
export function withGroupChange(
  current: TimelineDoc | null,
  appId: string,
  conversationId: string,
  change: GroupChange,
  at: number,
  chunkSize = CHUNK_SIZE,
): TimelineDoc | null {
  const base = current ?? emptyTimeline(appId, conversationId, 'group', at, chunkSize);
  switch (change.kind) {
    case 'created':
      return summarize({ ...base, conversationType: 'group', group: { ...change.group, membersCount: base.group?.membersCount ?? 0 } });
    case 'updated':
      return base.group ? summarize({ ...base, group: applyGroupUpdate(base.group, change.update) }) : current;
    case 'deleted':
      return summarize({ ...base, conversationType: 'group', groupDeleted: true });
    case 'members':
      return current ? withMembersCount(current, change.delta) : current;
    default: {
      const unreachable: never = change;
      throw new Error(`unhandled group change ${JSON.stringify(unreachable)}`);
    }
  }
}
