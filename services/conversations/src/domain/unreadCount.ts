import type { ConversationMemberDoc } from './conversationMember.js';
import { recentEntries } from './conversationTimeline.js';
import type { TimelineChunk, TimelineDoc, TimelineEntry, TimelineTotals } from './conversationTimeline.js';

/**
 * What one user sees of one conversation, derived when read from the conversation's timeline and the
 * user's own facts — never stored, so no message rewrites a document per reader.
 *
 * Rules (each one in the property test `projections/unreadCounts.unit.test.ts`):
 * - A message is visible to the user when it comes after their own reset and everyone's deletion
 *   mark and, in a group, was stored while they were a member (join inclusive, leave/kick/ban
 *   exclusive, compared on the timeline's effective time). Permanently deleted messages are gone.
 * - Unread: visible, after the read marker, not sent by them, not an action, not (soft-)deleted.
 * - Last message: the newest visible one (soft-deleted and actions included).
 * All three are ranges of timeline positions: a marker is the position of the last entry at or below
 * its message id, a membership boundary the position of the last entry before its time. Totals at a
 * position come from the chunk holding it, so the cost does not grow with the history: one-on-one
 * counts take two chunk look-ups, a group's counts scan the chunks of the unread range (a sender's
 * own messages have to be told apart), and recent positions are in the timeline document itself.
 */
export interface ConversationView {
  unreadCount: number;
  /** Id of the last visible message, 0 when none. */
  lastMessageSeq: number;
  /** The last visible message as shown (JSON text), when there is one. */
  lastMessage?: string;
  createdAt: number;
  updatedAt: number;
  /** Shown in the owner's list and readable by them. */
  listed: boolean;
}

/** Where sealed chunks and older messages are read from (the history collections, or a map in tests). */
export interface TimelineHistory {
  chunk(k: number): Promise<TimelineChunk | null>;
  /** A message of the conversation as shown now (edits and soft deletion applied); null when gone. */
  message(id: number): Promise<string | null>;
}

const ZERO: TimelineTotals = { n: 0, c: 0, by: {} };

/** Random access to a timeline's positions (1-based), chunk by chunk. */
class TimelinePositions {
  private readonly chunks = new Map<number, TimelineChunk>();
  private readonly windowStart: number;
  private readonly window: TimelineEntry[];

  constructor(
    private readonly doc: TimelineDoc,
    private readonly history: TimelineHistory,
  ) {
    this.chunks.set(doc.open.k, doc.open);
    if (doc.sealed) this.chunks.set(doc.sealed.k, doc.sealed);
    this.window = recentEntries(doc);
    this.windowStart = doc.totals.n - this.window.length + 1;
  }

  get size(): number {
    return this.doc.totals.n;
  }

  private async chunk(k: number): Promise<TimelineChunk> {
    const known = this.chunks.get(k);
    if (known) return known;
    const read = await this.history.chunk(k);
    if (!read) throw new Error(`timeline ${this.doc.conversationId}: chunk ${k} is not in the history`);
    this.chunks.set(k, read);
    return read;
  }

  async entry(position: number): Promise<TimelineEntry> {
    if (position >= this.windowStart) return this.window[position - this.windowStart]!;
    const size = this.doc.chunkSize;
    const k = Math.floor((position - 1) / size);
    return (await this.chunk(k)).entries[position - 1 - k * size]!;
  }

  /** Totals over positions 1…position. */
  async totalsAt(position: number): Promise<TimelineTotals> {
    if (position <= 0) return ZERO;
    const size = this.doc.chunkSize;
    const k = Math.floor((position - 1) / size);
    const chunk = await this.chunk(k);
    let { n, c } = chunk.before;
    const by = { ...chunk.before.by };
    for (const entry of chunk.entries.slice(0, position - k * size)) {
      n += 1;
      if (entry.a !== undefined) continue;
      c += 1;
      if (this.doc.conversationType === 'user') by[entry.s] = (by[entry.s] ?? 0) + 1;
    }
    return { n, c, by };
  }

  /**
   * The largest position whose entry satisfies `holds` (0 when none), for a predicate that holds up
   * to some position and not after it (entries are ordered by id and by effective time alike).
   */
  async lastWhere(holds: (entry: TimelineEntry) => boolean): Promise<number> {
    if (this.size === 0) return 0;
    const inWindow = this.window.length > 0 && holds(this.window[0]!);
    if (inWindow) return this.windowStart - 1 + lastIndexWhere(this.window, holds) + 1;
    // Below the window: find the last sealed chunk whose first entry holds, then the entry in it.
    const size = this.doc.chunkSize;
    let low = 0;
    let high = Math.floor((this.windowStart - 2) / size);
    if (high < 0 || !holds((await this.chunk(0)).entries[0]!)) return 0;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (holds((await this.chunk(middle)).entries[0]!)) low = middle;
      else high = middle - 1;
    }
    const chunk = await this.chunk(low);
    return low * size + lastIndexWhere(chunk.entries, holds) + 1;
  }
}

function lastIndexWhere(entries: readonly TimelineEntry[], holds: (entry: TimelineEntry) => boolean): number {
  let index = -1;
  for (let i = 0; i < entries.length && holds(entries[i]!); i++) index = i;
  return index;
}

/** Positions (after, upTo]: the user's messages there are told from the others' by their sender. */
interface Range {
  after: number;
  upTo: number;
}

/** The ranges of positions the owner saw as a member ((0, n] for a one-on-one conversation). */
async function memberRanges(positions: TimelinePositions, doc: TimelineDoc, member: ConversationMemberDoc | null): Promise<Range[]> {
  if (doc.conversationType === 'user') return [{ after: 0, upTo: positions.size }];
  const ranges: Range[] = [];
  for (const interval of member?.membership ?? []) {
    const after = await positions.lastWhere((e) => e.e < interval.from);
    const to = interval.to;
    const upTo = to === undefined ? positions.size : await positions.lastWhere((e) => e.e < to);
    if (upTo > after) ranges.push({ after, upTo });
  }
  return ranges;
}

/** Messages others sent in (after, upTo] that the owner has not read: countable and not deleted. */
async function othersCountable(positions: TimelinePositions, doc: TimelineDoc, owner: string, range: Range): Promise<number> {
  const deleted = new Set([...doc.deletedSoft, ...doc.deletedPermanently]);
  if (doc.conversationType === 'group') {
    let count = 0;
    for (let p = range.after + 1; p <= range.upTo; p++) {
      const entry = await positions.entry(p);
      if (entry.a === undefined && entry.s !== owner && !deleted.has(entry.i)) count += 1;
    }
    return count;
  }
  const [before, upTo] = await Promise.all([positions.totalsAt(range.after), positions.totalsAt(range.upTo)]);
  let count = upTo.c - before.c - ((upTo.by[owner] ?? 0) - (before.by[owner] ?? 0));
  const firstId = (await positions.entry(range.after + 1)).i;
  const lastId = (await positions.entry(range.upTo)).i;
  for (const id of deleted) {
    if (id < firstId || id > lastId) continue;
    const entry = await positions.entry(await positions.lastWhere((e) => e.i <= id));
    if (entry.i === id && entry.a === undefined && entry.s !== owner) count -= 1;
  }
  return count;
}

/** The newest entry of the ranges (after the clearing position) that is not permanently deleted. */
async function lastVisible(positions: TimelinePositions, doc: TimelineDoc, ranges: readonly Range[], cleared: number): Promise<TimelineEntry | undefined> {
  const gone = new Set(doc.deletedPermanently);
  for (const range of [...ranges].reverse()) {
    for (let p = range.upTo; p > Math.max(range.after, cleared); p--) {
      const entry = await positions.entry(p);
      if (!gone.has(entry.i)) return entry;
    }
  }
  return undefined;
}

/** The owner's view of the conversation; `member` is null for a one-on-one conversation they never marked. */
export async function conversationView(
  doc: TimelineDoc,
  member: ConversationMemberDoc | null,
  owner: string,
  history: TimelineHistory,
): Promise<ConversationView> {
  const positions = new TimelinePositions(doc, history);
  const clearedId = Math.max(member?.clearedUpTo ?? 0, doc.clearedUpTo);
  const readId = Math.max(member?.readUpTo ?? 0, clearedId);
  const [cleared, read, ranges] = await Promise.all([
    positions.lastWhere((e) => e.i <= clearedId),
    positions.lastWhere((e) => e.i <= readId),
    memberRanges(positions, doc, member),
  ]);
  let unreadCount = 0;
  for (const range of ranges) {
    const after = Math.max(range.after, read);
    if (range.upTo > after) unreadCount += await othersCountable(positions, doc, owner, { after, upTo: range.upTo });
  }
  const last = await lastVisible(positions, doc, ranges, cleared);
  const lastMessage = last === undefined ? undefined : last.i === doc.last?.id && doc.last.message !== undefined ? doc.last.message : await history.message(last.i);

  const isGroup = doc.conversationType === 'group';
  const createdAt = isGroup ? (member?.firstJoinedAt ?? 0) : (doc.firstSentAt ?? 0);
  const hasMessage = last !== undefined;
  const listed = isGroup
    ? doc.groupDeleted !== true && member?.membership !== undefined && (hasMessage || member.clearedUpTo === 0)
    : hasMessage;
  return {
    unreadCount: Math.max(0, unreadCount),
    lastMessageSeq: last?.i ?? 0,
    ...(lastMessage !== undefined && lastMessage !== null ? { lastMessage } : {}),
    createdAt,
    updatedAt: last?.t ?? (isGroup ? (member?.joinedAt ?? createdAt) : createdAt),
    listed,
  };
}

/**
 * The newest existing message of the timeline before `id` (0 when none): where "mark unread" without
 * a message id puts the read marker, so exactly the last message is unread again.
 */
export async function messageBefore(doc: TimelineDoc, history: TimelineHistory, id: number): Promise<number> {
  const gone = new Set(doc.deletedPermanently);
  const positions = new TimelinePositions(doc, history);
  for (let p = await positions.lastWhere((e) => e.i < id); p > 0; p--) {
    const entry = await positions.entry(p);
    if (!gone.has(entry.i)) return entry.i;
  }
  return 0;
}

/** Whether `id` is a message of the conversation's timeline that still exists (not a thread reply, not permanently deleted). */
export async function holdsMessage(doc: TimelineDoc, history: TimelineHistory, id: number): Promise<boolean> {
  if (doc.deletedPermanently.includes(id)) return false;
  const positions = new TimelinePositions(doc, history);
  const position = await positions.lastWhere((e) => e.i <= id);
  return position > 0 && (await positions.entry(position)).i === id;
}
