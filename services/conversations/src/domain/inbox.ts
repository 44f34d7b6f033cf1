import { messageIdNumber } from './conversationTimeline.js';

/**
 * One user's conversation list, kept so that its first pages need reads by id only (FerretDB v1
 * answers nothing else from an index). One-on-one conversations are fanned out on write: a message
 * moves its conversation up in both participants' inboxes. Group conversations are not (a group
 * message would rewrite every member's inbox): the inbox holds the ids of the user's groups, and
 * each group's activity is read from its timeline when the list is read.
 *
 * Message activity is a max-merge: an entry's activity only grows, so re-applying any message
 * changes nothing and the inbox keeps no position per conversation (the runtime's `sourceOf: null`).
 * The list is bounded to the INBOX_SIZE most recent one-on-one conversations; older pages are served
 * from the user's timelines and member documents (`ConversationReadModel.listDeep`).
 */
export const INBOX_SIZE = 200;

/** A one-on-one conversation in the inbox: its newest message, as the list orders it. */
export interface InboxEntry {
  /** Conversation id. */
  c: string;
  /** The other participant. */
  p: string;
  /** Newest message id seen. */
  i: number;
  /** That message's `sentAt` (s): the list orders by it, then by id. */
  t: number;
  /** The conversation's first message is accounted for in `started`. */
  s?: 1;
}

/** A conversation the owner reset (up to `r`) and that no newer message brought back: not listed. */
export interface HiddenEntry extends InboxEntry {
  r: number;
}

/** Hidden conversations kept (resets are rare); past it the oldest are forgotten and `total` counts them again. */
export const HIDDEN_SIZE = 500;

/** Where the list order puts a conversation: by last activity (s), then by message id. */
export interface Activity {
  t: number;
  i: number;
}

export interface InboxDoc {
  appId: string;
  owner: string;
  /** Listed, newest first, at most INBOX_SIZE. */
  recent: InboxEntry[];
  /** Reset and not brought back by a newer message (`i <= r`), whether or not they were in `recent`. */
  hidden: HiddenEntry[];
  /** One-on-one conversations the owner has, counted by their first message (stream version 1). */
  started: number;
  /** The newest activity dropped from `recent`: absent while nothing was dropped (the inbox is complete). */
  evicted?: Activity;
  /** Group conversations the owner joined (former members still list them), sorted. */
  groups: string[];
  /** The owner's own pins, newest first (`o`: the pin's position in their pin stream). */
  pins: Array<{ c: string; o: number }>;
}

export function inboxDocId(appId: string, owner: string): string {
  return `${appId}:${owner}`;
}

export function emptyInbox(appId: string, owner: string): InboxDoc {
  return { appId, owner, recent: [], hidden: [], started: 0, groups: [], pins: [] };
}

/** Positive when `a` comes before `b` in the list (more recent). */
export function compareActivity(a: Activity, b: Activity): number {
  return a.t - b.t || a.i - b.i;
}

function sortedNewestFirst(entries: InboxEntry[]): InboxEntry[] {
  return entries.sort((a, b) => compareActivity(b, a) || (a.c < b.c ? -1 : a.c > b.c ? 1 : 0));
}

/** Drops the oldest entries past the bound, remembering the newest activity dropped. */
function bounded(doc: InboxDoc, recent: InboxEntry[], size: number): InboxDoc {
  if (recent.length <= size) return { ...doc, recent };
  let evicted = doc.evicted;
  for (const entry of recent.slice(size)) if (!evicted || compareActivity(entry, evicted) > 0) evicted = { t: entry.t, i: entry.i };
  return { ...doc, recent: recent.slice(0, size), ...(evicted ? { evicted } : {}) };
}

/**
 * A one-on-one message, for one of its two participants. `first` says it is its conversation's first
 * event (stream version 1): that is what counts a conversation once, whatever else is redelivered.
 * A message older than everything the inbox dropped belongs to a conversation that is older than the
 * whole window: it changes nothing (it may be a redelivery of a dropped conversation's message).
 */
export function withInboxMessage(
  doc: InboxDoc,
  message: { conversationId: string; peer: string; id: string; sentAt: number },
  first: boolean,
  size = INBOX_SIZE,
): InboxDoc {
  const activity: Activity = { t: message.sentAt, i: messageIdNumber(message.id) };
  const newerThanDropped = !doc.evicted || compareActivity(activity, doc.evicted) > 0;
  const hidden = doc.hidden.find((entry) => entry.c === message.conversationId);
  const current = doc.recent.find((entry) => entry.c === message.conversationId) ?? hidden;
  if (!current && !newerThanDropped) return doc;
  // A first message older than the dropped part may be one of a conversation dropped and back again: counted already.
  const counts = first && current?.s === undefined && newerThanDropped;
  const base: InboxEntry = current ?? { c: message.conversationId, p: message.peer, i: activity.i, t: activity.t };
  const entry: InboxEntry = {
    c: base.c,
    p: message.peer,
    ...(activity.i > base.i ? { i: activity.i, t: activity.t } : { i: base.i, t: base.t }),
    ...(first || base.s ? { s: 1 as const } : {}),
  };
  // Nothing new (a redelivery): the same document, so the runtime writes nothing.
  if (current && !counts && entry.i === current.i && entry.p === current.p && entry.s === current.s) return doc;
  const next = { ...doc, started: doc.started + (counts ? 1 : 0) };
  if (hidden && entry.i <= hidden.r) return { ...next, hidden: doc.hidden.map((h) => (h === hidden ? { ...entry, r: hidden.r } : h)) };
  const recent = doc.recent.filter((e) => e.c !== entry.c);
  recent.push(entry);
  return bounded({ ...next, hidden: doc.hidden.filter((h) => h !== hidden) }, sortedNewestFirst(recent), size);
}

/**
 * The owner reset a conversation up to a message: hidden until a newer one arrives. A reset older
 * than the conversation's newest message changes nothing; one of a conversation outside the window
 * hides it too (its newest message is then unknown: any message newer than the reset brings it back).
 */
export function withInboxReset(doc: InboxDoc, conversationId: string, upToMessageId: string): InboxDoc {
  const r = messageIdNumber(upToMessageId);
  const hidden = doc.hidden.find((entry) => entry.c === conversationId);
  if (hidden) return r > hidden.r ? { ...doc, hidden: doc.hidden.map((h) => (h === hidden ? { ...h, r } : h)) } : doc;
  const listed = doc.recent.find((entry) => entry.c === conversationId);
  if (listed && listed.i > r) return doc;
  const entry: HiddenEntry = { ...(listed ?? { c: conversationId, p: '', i: 0, t: 0 }), r };
  // The most recently reset are kept.
  const kept = [...doc.hidden, entry].sort((a, b) => b.r - a.r).slice(0, HIDDEN_SIZE);
  return { ...doc, recent: doc.recent.filter((e) => e !== listed), hidden: kept };
}

export function withInboxGroup(doc: InboxDoc, conversationId: string): InboxDoc {
  if (doc.groups.includes(conversationId)) return doc;
  return { ...doc, groups: [...doc.groups, conversationId].sort() };
}

/** The owner's pins, newest first; `order` is the pin's version in their pin stream (null: unpinned). */
export function withInboxPin(doc: InboxDoc, conversationId: string, order: number | null): InboxDoc {
  const pins = doc.pins.filter((pin) => pin.c !== conversationId);
  if (order !== null) pins.push({ c: conversationId, o: order });
  return { ...doc, pins: pins.sort((a, b) => b.o - a.o) };
}

/**
 * How many one-on-one conversations the owner's list shows, as far as the inbox knows: every listed
 * one while it is complete; past the bound, the conversations counted by their first message less
 * the hidden ones. Only the views see the rest (a conversation whose every message was deleted
 * permanently, a deletion for everyone, more than HIDDEN_SIZE reset conversations).
 */
export function oneOnOneTotal(doc: InboxDoc): number {
  if (!doc.evicted) return doc.recent.length;
  return Math.max(doc.started - doc.hidden.length, doc.recent.length);
}
