import { compacted, expanded } from './logCompaction.js';
import type { CompactEntries } from './logCompaction.js';
import type { LogDocument } from './notificationRecord.js';

/** One entry of `GET /notifications/v1/logs`, with its id. */
export type LogEntry = LogDocument & { _id: string };

export type LogFilter = Partial<Record<'messageId' | 'messageCategory' | 'messageType' | 'trigger' | 'sender' | 'receiver' | 'receiverType' | 'recipient' | 'channel' | 'provider' | 'reason', string | undefined>> & {
  notificationTriggered?: boolean | undefined;
  success?: boolean | undefined;
  from?: number | undefined;
  to?: number | undefined;
};

/** `after`: the entries below (older than) that one; `before`: those above it (newer), still listed newest first. */
export interface LogPageRequest {
  limit: number;
  after?: string | undefined;
  before?: string | undefined;
}

/**
 * A document of the log (ADR 0049): the entries one write recorded (a message's decisions and first
 * calls, or the later calls recorded together), sorted by the latest of their start times. The
 * entries are one JSON string (ADR 0073): the store's write lock follows how many values a document
 * holds, not its bytes, and nothing queries inside the entries (the pager filters them here).
 */
export interface LogBatchDocument {
  appId: string;
  /** The latest entry's start: the log is read newest document first by this. */
  processingStartedAtMS: number;
  /** The earliest entry's start. */
  firstStartedAtMS: number;
  /** Every entry's id, so an entry named as a page's anchor is found. */
  entryIds: string[];
  /** The entries, compacted (ADR 0059: `compacted`) and written as JSON; read them with `entriesOf`. */
  packed: string;
}

/** A document of many entries as builds before ADR 0073 wrote it: the compacted entries as fields. */
export type LogFieldsDocument = Omit<LogBatchDocument, 'packed'> & CompactEntries;

/** A stored log document: a batch, one of fields (ADR 0049/0059), or (written before ADR 0049) one entry. */
export type StoredLogDocument = (LogBatchDocument | LogFieldsDocument | LogDocument) & { _id: string };

/** The log document a message's decisions are kept under: its presence says the message was decided. */
export function messageLogId(appId: string, messageId: string): string {
  return `m:${appId}:${messageId}`;
}

/** The document of a batch of entries (at least one, or none for a message whose sends are all still pending). */
export function logBatchOf(appId: string, entries: readonly LogEntry[], decidedAt: number): LogBatchDocument {
  let latest = entries.length === 0 ? decidedAt : -Infinity;
  let earliest = entries.length === 0 ? decidedAt : Infinity;
  for (const e of entries) {
    latest = Math.max(latest, e.processingStartedAtMS);
    earliest = Math.min(earliest, e.processingStartedAtMS);
  }
  return {
    appId,
    processingStartedAtMS: latest,
    firstStartedAtMS: earliest,
    entryIds: entries.map((e) => e._id),
    packed: JSON.stringify(compacted(entries)),
  };
}

/** Whether a stored document holds many entries (packed or as fields), not one entry of its own. */
export function holdsEntries(doc: StoredLogDocument): doc is (LogBatchDocument | LogFieldsDocument) & { _id: string } {
  return ('packed' in doc && typeof doc.packed === 'string') || ('entries' in doc && Array.isArray(doc.entries));
}

/** The entries a log document holds, as they were recorded. */
export function entriesOf(doc: StoredLogDocument): LogEntry[] {
  if ('packed' in doc && typeof doc.packed === 'string') return expanded<LogEntry>(JSON.parse(doc.packed) as CompactEntries);
  if ('entries' in doc && Array.isArray(doc.entries)) return expanded<LogEntry>(doc);
  return [doc as LogEntry];
}

const equalityFields = ['messageId', 'messageCategory', 'messageType', 'trigger', 'sender', 'receiver', 'receiverType', 'recipient', 'channel', 'provider', 'reason'] as const;

export function entryMatches(entry: LogEntry, filter: LogFilter): boolean {
  for (const key of equalityFields) {
    const value = filter[key];
    if (value !== undefined && entry[key] !== value) return false;
  }
  if (filter.notificationTriggered !== undefined && entry.notificationTriggered !== filter.notificationTriggered) return false;
  if (filter.success !== undefined && (entry.success === true) !== filter.success) return false;
  if (filter.from !== undefined && entry.processingStartedAtMS < filter.from) return false;
  if (filter.to !== undefined && entry.processingStartedAtMS > filter.to) return false;
  return true;
}

/** The log's order: newest start first, then the larger id first. */
export function newestFirst(a: LogEntry, b: LogEntry): number {
  if (a.processingStartedAtMS !== b.processingStartedAtMS) return b.processingStartedAtMS - a.processingStartedAtMS;
  return a._id < b._id ? 1 : a._id > b._id ? -1 : 0;
}

/**
 * One page of the log, gathered from its documents read newest first (by their latest entry). The
 * entries are those the per-entry log answered: every filter and the anchor applied to each entry,
 * in the same order. Reading newest first can stop once a page is full and the next document's
 * latest entry is older than the page's last: no entry of it or of any later document can enter.
 * Entries above an anchor (`before`) are gathered from every document at or after its time.
 */
export class LogPager {
  private readonly found = new Map<string, LogEntry>();
  private readonly newer: boolean;
  /** The page's last entry once it is full (reading newest first). */
  private last: LogEntry | null = null;

  constructor(
    private readonly filter: LogFilter,
    private readonly page: LogPageRequest,
    private readonly anchor: LogEntry | null,
  ) {
    this.newer = anchor !== null && page.before !== undefined;
  }

  /** Documents whose latest entry starts before this hold nothing for the page (a bound the store can apply). */
  lowerBound(): number | undefined {
    const bounds = [this.filter.from, this.newer ? this.anchor!.processingStartedAtMS : undefined].filter((b): b is number => b !== undefined);
    return bounds.length === 0 ? undefined : Math.max(...bounds);
  }

  /** Takes the next document (newest first); false: the page is complete, read no more. */
  offer(doc: StoredLogDocument): boolean {
    if (this.last && doc.processingStartedAtMS < this.last.processingStartedAtMS) return false;
    let added = false;
    for (const entry of entriesOf(doc)) {
      // A later call recorded twice (a record retried after its answer was lost) is listed once.
      if (this.found.has(entry._id) || !entryMatches(entry, this.filter) || !this.beyondAnchor(entry)) continue;
      this.found.set(entry._id, entry);
      added = true;
    }
    if (added && !this.newer && this.found.size >= this.page.limit) {
      const sorted = [...this.found.values()].sort(newestFirst).slice(0, this.page.limit);
      this.found.clear();
      for (const entry of sorted) this.found.set(entry._id, entry);
      this.last = sorted.at(-1)!;
    }
    return true;
  }

  /** The page, newest first. */
  entries(): LogEntry[] {
    const sorted = [...this.found.values()].sort(newestFirst);
    return this.newer ? sorted.slice(-this.page.limit) : sorted.slice(0, this.page.limit);
  }

  private beyondAnchor(entry: LogEntry): boolean {
    if (!this.anchor) return true;
    const order = newestFirst(entry, this.anchor);
    return this.newer ? order < 0 : order > 0;
  }
}
