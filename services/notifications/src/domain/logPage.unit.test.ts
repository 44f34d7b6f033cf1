import { describe, expect, it } from 'vitest';
import { compacted } from './logCompaction.js';
import { LogPager, entriesOf, entryMatches, logBatchOf, newestFirst } from './logPage.js';
import type { LogEntry, LogFieldsDocument, LogFilter, LogPageRequest, StoredLogDocument } from './logPage.js';

/** A document of many entries as builds before ADR 0073 wrote it: the compacted entries as fields. */
function fieldsDocumentOf(entries: readonly LogEntry[]): LogFieldsDocument {
  const { packed, ...head } = logBatchOf('app1', entries, 0);
  void packed;
  return { ...head, ...compacted(entries) };
}

/** A small seeded generator, so a failure names the seed that shows it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function entry(id: string, at: number, recipient: string, success: boolean | undefined): LogEntry {
  return {
    _id: id,
    appId: 'app1',
    notificationId: id.slice(0, 8),
    trigger: 'after_message',
    messageId: `m${at % 3}`,
    conversationId: 'c1',
    messageCategory: 'message',
    messageType: 'text',
    sender: 'alice',
    receiver: recipient,
    receiverType: 'user',
    recipient,
    channel: 'push',
    messageSentAt: at,
    notificationTriggered: success !== undefined,
    ...(success !== undefined ? { success, attempt: 1 } : { reason: 'MUTE_PREFERENCE' as const }),
    processingStartedAtMS: at,
    processingEndedAtMS: at,
  };
}

/** What the log answered when each entry was a document of its own (the query the store ran then). */
function reference(entries: readonly LogEntry[], filter: LogFilter, page: LogPageRequest): LogEntry[] {
  const anchorId = page.after ?? page.before;
  const anchor = entries.find((e) => e._id === anchorId) ?? null;
  let kept = entries.filter((e) => entryMatches(e, filter));
  if (anchor) kept = kept.filter((e) => (page.after !== undefined ? newestFirst(e, anchor) > 0 : newestFirst(e, anchor) < 0));
  if (anchor && page.after === undefined) return kept.sort(newestFirst).reverse().slice(0, page.limit).reverse();
  return kept.sort(newestFirst).slice(0, page.limit);
}

/** The page as the read model gathers it: documents at or above the pager's bound, newest first. */
function paged(docs: readonly StoredLogDocument[], entries: readonly LogEntry[], filter: LogFilter, page: LogPageRequest): { page: LogEntry[]; read: number } {
  const anchorId = page.after ?? page.before;
  const pager = new LogPager(filter, page, entries.find((e) => e._id === anchorId) ?? null);
  const lower = pager.lowerBound();
  const ordered = docs
    .filter((d) => lower === undefined || d.processingStartedAtMS >= lower)
    .sort((a, b) => b.processingStartedAtMS - a.processingStartedAtMS || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0));
  let read = 0;
  for (const doc of ordered) {
    read += 1;
    if (!pager.offer(doc)) break;
  }
  return { page: pager.entries(), read };
}

describe('a page of the log gathered from documents of many entries', () => {
  it('answers exactly what one document per entry answered: filters, anchors both ways, ties, duplicates', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const next = random(seed);
      const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
      const count = Math.floor(next() * 60);
      const entries = Array.from({ length: count }, (_, i) =>
        entry(`${Math.floor(next() * 0xffff).toString(16).padStart(4, '0')}${i}`, 1_000 + Math.floor(next() * 20), pick(['bob', 'carol', 'dave']), pick([undefined, true, false])),
      );
      // Documents as the service writes them: runs of entries, packed or as fields (the shape before
      // ADR 0073), some alone (the shape before ADR 0049), one repeated.
      const docs: StoredLogDocument[] = [];
      for (let from = 0; from < entries.length; ) {
        const size = 1 + Math.floor(next() * 8);
        const part = entries.slice(from, from + size);
        const shape = next();
        docs.push(size === 1 && shape < 0.3 ? part[0]! : { ...(shape < 0.6 ? fieldsDocumentOf(part) : logBatchOf('app1', part, 0)), _id: `b${from}` });
        from += size;
      }
      if (entries.length > 0 && next() < 0.3) docs.push({ ...logBatchOf('app1', [pick(entries)], 0), _id: 'again' });
      const filter: LogFilter = {
        ...(next() < 0.3 ? { recipient: pick(['bob', 'carol', 'dave']) } : {}),
        ...(next() < 0.2 ? { success: next() < 0.5 } : {}),
        ...(next() < 0.2 ? { notificationTriggered: next() < 0.5 } : {}),
        ...(next() < 0.2 ? { from: 1_000 + Math.floor(next() * 20) } : {}),
        ...(next() < 0.2 ? { to: 1_000 + Math.floor(next() * 20) } : {}),
      };
      const anchor = entries.length > 0 && next() < 0.6 ? pick(entries)._id : next() < 0.5 ? 'missing' : undefined;
      const page: LogPageRequest = { limit: 1 + Math.floor(next() * 10), ...(anchor !== undefined ? (next() < 0.5 ? { after: anchor } : { before: anchor }) : {}) };
      const got = paged(docs, entries, filter, page).page.map((e) => e._id);
      expect({ seed, ids: got }).toEqual({ seed, ids: reference(entries, filter, page).map((e) => e._id) });
    }
  });

  it('stops reading once the page is full and the next document is older than its last entry', () => {
    const entries = Array.from({ length: 100 }, (_, i) => entry(`e${String(i).padStart(3, '0')}`, 1_000 + i, 'bob', true));
    const docs = Array.from({ length: 10 }, (_, d) => ({ ...logBatchOf('app1', entries.slice(d * 10, d * 10 + 10), 0), _id: `b${d}` }));
    const { page, read } = paged(docs, entries, {}, { limit: 15 });
    expect(page.map((e) => e.processingStartedAtMS)).toEqual(Array.from({ length: 15 }, (_, i) => 1_099 - i));
    expect(read).toBe(3);
  });

  it("keeps a batch's entries as one JSON string that gives them back as they were, beside the fields the store reads", () => {
    const entries = [entry('e1', 1_005, 'bob', true), entry('e2', 1_001, 'carol', undefined), entry('e3', 1_003, 'bob', false)];
    const doc = logBatchOf('app1', entries, 0);
    expect(Object.keys(doc).sort()).toEqual(['appId', 'entryIds', 'firstStartedAtMS', 'packed', 'processingStartedAtMS']);
    expect(doc).toMatchObject({ processingStartedAtMS: 1_005, firstStartedAtMS: 1_001, entryIds: ['e1', 'e2', 'e3'] });
    expect(entriesOf({ ...doc, _id: 'b' })).toEqual(entries);
    expect(entriesOf({ ...fieldsDocumentOf(entries), _id: 'old' })).toEqual(entries);
    expect(logBatchOf('app1', [], 77)).toMatchObject({ processingStartedAtMS: 77, firstStartedAtMS: 77, entryIds: [] });
  });
});
