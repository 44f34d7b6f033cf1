import { docOfSent, evolveMessageDocument, messageDocId } from '@chat/contracts';
import type { KnownEvent, MessageDoc, MessageDocumentEvent } from '@chat/contracts';
import { cursorTopics, sameLayout, topicIndex } from './cursor.js';
import type { CursorVector } from './cursor.js';
import { membershipChangesOf } from './membership.js';
import type { MembershipChange } from './membership.js';

/** A decoded record of a cursor topic, kept for resumes. */
export interface WindowEntry {
  /** Index into `cursorTopics`. */
  topic: number;
  partition: number;
  offset: number;
  timestamp: number;
  event: KnownEvent;
}

export interface WindowLimits {
  /** Records older than this (by producer time) are dropped (REALTIME_RETENTION_SECONDS). */
  retentionMs: number;
  /** At most this many records are kept, the oldest dropped first (REALTIME_RETENTION_EVENTS). */
  maxEvents: number;
}

interface PartitionLog {
  entries: WindowEntry[];
  /** Index of the oldest kept entry (entries before it are dropped; compacted now and then). */
  head: number;
}

const messageEvents: ReadonlySet<string> = new Set(['MessageSent', 'MessageEdited', 'MessageDeleted', 'MessageReactionAdded', 'MessageReactionRemoved', 'MessagePinned', 'MessageUnpinned']);

/**
 * The recent past of the cursor topics, the same on every replica (ADR 0069): decoded records per
 * partition, each partition's position (the next offset read) and the oldest position a resume may
 * name (`start`), the messages sent in it folded to their latest state (so an edit's frame carries
 * the whole message), and the membership changes in it (replayed onto a connecting user's groups).
 */
export class RetentionWindow {
  private readonly logs = new Map<string, PartitionLog>();
  private readonly position: number[][] = cursorTopics.map(() => []);
  private readonly start: number[][] = cursorTopics.map(() => []);
  private readonly docs = new Map<string, MessageDoc>();
  private readonly changes: Array<{ timestamp: number; change: MembershipChange }> = [];
  /**
   * The ids of the events kept. Delivery onto the topic is at least once: a process publishing another
   * process's commits to keep a stream in order (ADR 0050), or a produce retried after a partial
   * success, puts an event there twice; a second copy inside the window is not a new frame.
   */
  private readonly ids = new Set<string>();
  private size = 0;

  constructor(private readonly limits: WindowLimits) {}

  /** Where a partition starts being read; a partition already known keeps its past (a consumer relaunched). */
  begin(topic: string, partition: number, offset: number): void {
    const t = topicIndex(topic);
    if (t === -1) return;
    if (this.position[t]![partition] !== undefined) return;
    this.position[t]![partition] = offset;
    this.start[t]![partition] = offset;
  }

  /** The next offset of a partition this window has read to, if it has. */
  positionOf(topic: string, partition: number): number | undefined {
    const t = topicIndex(topic);
    return t === -1 ? undefined : this.position[t]![partition];
  }

  /**
   * A record read: its entry when it is kept (a decoded record of a cursor topic), after folding it
   * into the message it is about. Position moves past it either way.
   */
  record(topic: string, partition: number, offset: number, timestamp: number, event: KnownEvent | null): WindowEntry | null {
    const t = topicIndex(topic);
    if (t === -1) return null;
    this.position[t]![partition] = offset + 1;
    if (!event || this.ids.has(event.id)) return null;
    this.ids.add(event.id);
    const entry: WindowEntry = { topic: t, partition, offset, timestamp, event };
    const key = `${t}:${partition}`;
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = { entries: [], head: 0 }));
    log.entries.push(entry);
    this.size += 1;
    this.fold(event);
    for (const change of membershipChangesOf(event)) this.changes.push({ timestamp, change });
    return entry;
  }

  /** The message's latest state while its send is in the window, else null. */
  message(appId: string, id: string): MessageDoc | null {
    return this.docs.get(messageDocId(appId, id)) ?? null;
  }

  /** Every partition's position, the cursor of a connection that has seen everything read so far. */
  vector(): number[][] {
    return this.position.map((offsets) => [...offsets]);
  }

  /** The membership changes in the window, oldest first. */
  membershipChanges(): MembershipChange[] {
    return this.changes.map((c) => c.change);
  }

  /**
   * The kept records after `from` up to the position, merged across partitions by time (each
   * partition in its order), or null when `from` names records no longer kept, or another layout.
   */
  after(from: CursorVector): WindowEntry[] | null {
    if (!sameLayout(from, this.position)) return null;
    const slices: WindowEntry[][] = [];
    for (let t = 0; t < cursorTopics.length; t++) {
      const offsets = this.start[t]!;
      for (let p = 0; p < offsets.length; p++) {
        const since = from[t]![p]!;
        if (since < offsets[p]!) return null;
        const log = this.logs.get(`${t}:${p}`);
        if (!log) continue;
        const slice: WindowEntry[] = [];
        for (let i = log.head; i < log.entries.length; i++) if (log.entries[i]!.offset >= since) slice.push(log.entries[i]!);
        if (slice.length > 0) slices.push(slice);
      }
    }
    return mergeByTime(slices);
  }

  /** Drops what is older than the retention or beyond the count, oldest first. */
  evict(now: number): void {
    const oldest = now - this.limits.retentionMs;
    for (;;) {
      let victim: PartitionLog | undefined;
      for (const log of this.logs.values()) {
        const head = log.entries[log.head];
        if (head && (!victim || head.timestamp < victim.entries[victim.head]!.timestamp)) victim = log;
      }
      const entry = victim?.entries[victim.head];
      if (!victim || !entry || (entry.timestamp >= oldest && this.size <= this.limits.maxEvents)) break;
      victim.head += 1;
      this.size -= 1;
      // A resume from before a dropped record can no longer be served.
      this.start[entry.topic]![entry.partition] = entry.offset + 1;
      this.ids.delete(entry.event.id);
      if (entry.event.type === 'MessageSent') this.docs.delete(messageDocId(entry.event.appId, entry.event.data.id));
      if (victim.head > 1024 && victim.head * 2 > victim.entries.length) {
        victim.entries.splice(0, victim.head);
        victim.head = 0;
      }
    }
    let dropped = 0;
    while (dropped < this.changes.length && (this.changes[dropped]!.timestamp < oldest || this.changes.length - dropped > this.limits.maxEvents)) dropped++;
    if (dropped > 0) this.changes.splice(0, dropped);
  }

  /** Records kept now (a metric). */
  get length(): number {
    return this.size;
  }

  private fold(event: KnownEvent): void {
    if (!messageEvents.has(event.type)) return;
    const e = event as MessageDocumentEvent;
    const id = messageDocId(e.appId, e.data.id);
    if (e.type === 'MessageSent') {
      if (!e.data.imported) this.docs.set(id, docOfSent(e.appId, e.data));
      const parent = e.data.parentId !== undefined ? messageDocId(e.appId, e.data.parentId) : undefined;
      const parentDoc = parent ? this.docs.get(parent) : undefined;
      if (parent && parentDoc) this.docs.set(parent, evolveMessageDocument(parentDoc, e, parent) ?? parentDoc);
      return;
    }
    const doc = this.docs.get(id);
    if (!doc) return;
    const next = evolveMessageDocument(doc, e, id);
    if (next) this.docs.set(id, next);
    else this.docs.delete(id);
  }
}

/** A k-way merge by timestamp that keeps each slice's own order (per-partition order is the guarantee). */
function mergeByTime(slices: WindowEntry[][]): WindowEntry[] {
  if (slices.length === 1) return slices[0]!;
  const merged: WindowEntry[] = [];
  const next = slices.map(() => 0);
  for (;;) {
    let best = -1;
    for (let s = 0; s < slices.length; s++) {
      const candidate = slices[s]![next[s]!];
      if (candidate && (best === -1 || candidate.timestamp < slices[best]![next[best]!]!.timestamp)) best = s;
    }
    if (best === -1) return merged;
    merged.push(slices[best]![next[best]!]!);
    next[best]! += 1;
  }
}
