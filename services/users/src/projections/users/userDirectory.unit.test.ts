import { describe, expect, it } from 'vitest';
import {
  DIRECTORY_CHUNK_SIZE,
  buildChunks,
  chunkIndexFor,
  loweredFront,
  needsNewChunk,
  needsSplit,
  nextChunkId,
  opensFront,
  pageWindow,
  placeAll,
  placeEntry,
  recounted,
  splitHalves,
  withChunkAt,
  withSplitDone,
  withSplitMarked,
} from './userDirectory.js';
import type { DirectoryEntry } from './userDirectory.js';

const entry = (k: string, live = true): DirectoryEntry => ({ k, uid: k, live });

describe('user directory', () => {
  it('places entries in key order, flips liveness, and reports no-ops', () => {
    const entries = [entry('a'), entry('c')];
    expect(placeEntry(entries, entry('b'))?.map((e) => e.k)).toEqual(['a', 'b', 'c']);
    expect(placeEntry(entries, entry('d'))?.map((e) => e.k)).toEqual(['a', 'c', 'd']);
    expect(placeEntry(entries, entry('a'))).toBeNull();
    expect(placeEntry(entries, entry('b', false))).toBeNull();
    expect(placeEntry(entries, entry('c', false))).toEqual([entry('a'), entry('c', false)]);
  });

  it('never lets an older version of a user replace a newer one (a late write from another replica)', () => {
    const deleted = { ...entry('b', false), v: 2 };
    const entries = [entry('a'), deleted];
    expect(placeEntry(entries, { ...entry('b'), v: 1 })).toBeNull();
    expect(placeEntry(entries, { ...entry('b'), v: 3 })).toEqual([entry('a'), { ...entry('b'), v: 3 }]);
    // Entries written before versions were kept give way to any versioned one.
    expect(placeEntry([entry('b', false)], { ...entry('b'), v: 1 })).toEqual([{ ...entry('b'), v: 1 }]);
  });

  it('keeps the live count of the newest chunk revision it was told of (counts from two replicas, in any order)', () => {
    const refs = [{ id: 0, first: 'c', live: 5 }, { id: 1, first: 'm', live: 2 }];
    const newer = recounted(refs, 0, 4, 6);
    expect(newer).toEqual([{ id: 0, first: 'c', live: 4, rev: 6 }, { id: 1, first: 'm', live: 2 }]);
    // The writer of revision 5 counts after the writer of revision 6: nothing changes.
    expect(recounted(newer, 0, 5, 5)).toEqual(newer);
    expect(recounted(newer, 0, 3, 7)).toEqual([{ id: 0, first: 'c', live: 3, rev: 7 }, { id: 1, first: 'm', live: 2 }]);
  });

  it('finds the chunk for a key, and opens a new one past any full chunk or in front of the first (ADR 0142)', () => {
    const refs = [{ id: 0, first: 'a', live: 2 }, { id: 1, first: 'm', live: 1 }];
    expect(chunkIndexFor(refs, '0')).toBe(0);
    expect(chunkIndexFor(refs, 'k')).toBe(0);
    expect(chunkIndexFor(refs, 'z')).toBe(1);
    const full = Array.from({ length: DIRECTORY_CHUNK_SIZE }, (_, i) => entry(`k${String(i).padStart(5, '0')}`));
    expect(needsNewChunk(full, entry('z'))).toBe(true);
    expect(needsNewChunk(full.slice(1), entry('z'))).toBe(false);
    expect(needsNewChunk(full, entry('a'))).toBe(false);
    expect(needsNewChunk(full, entry('z', false))).toBe(false);
    expect(opensFront(refs, entry('0'))).toBe(true);
    expect(opensFront(refs, entry('0', false))).toBe(false);
    expect(opensFront(refs, entry('a'))).toBe(false);
    expect(opensFront([], entry('0'))).toBe(false);
    const front = { id: 2, first: '0', live: 1 };
    expect(withChunkAt(refs, 0, front)).toEqual([front, ...refs]);
    expect(withChunkAt(refs, 1, front)).toEqual([refs[0], front, refs[1]]);
  });

  it('lowers a chunk opened in front to take keys below it while it has room, never the app\'s own first chunk (ADR 0142, amended)', () => {
    const front = [{ id: 2, first: 'm', front: true as const, live: 1 }, { id: 0, first: 'x', live: 3 }];
    expect(loweredFront(front, 1, [entry('k'), entry('n'), entry('z')])).toEqual([{ ...front[0], first: 'k' }, front[1]]);
    // Room for two: the two largest keys below go in, the rest still lie below (they open a chunk in front).
    const keys = [entry('a'), entry('c'), entry('b'), entry('d', false)];
    const lowered = loweredFront(front, DIRECTORY_CHUNK_SIZE - 2, keys);
    expect(lowered?.[0]?.first).toBe('b');
    expect(keys.filter((e) => opensFront(lowered ?? [], e)).map((e) => e.k)).toEqual(['a']);
    expect(loweredFront(front, DIRECTORY_CHUNK_SIZE, keys)).toBeNull();
    expect(loweredFront(front, 1, [entry('n'), entry('a', false)])).toBeNull();
    expect(loweredFront([{ id: 0, first: 'x', live: 3 }], 3, keys)).toBeNull();
    expect(loweredFront([], 0, keys)).toBeNull();
  });

  it('places a batch into a chunk in key order and hands back what belongs past a full chunk', () => {
    const chunk = [entry('b'), entry('d')];
    const placed = placeAll(chunk, [entry('c'), entry('a'), entry('b')]);
    expect(placed.next.map((e) => e.k)).toEqual(['a', 'b', 'c', 'd']);
    expect(placed).toMatchObject({ changed: true, past: [], inside: [] });
    expect(chunk.map((e) => e.k)).toEqual(['b', 'd']);
    expect(placeAll(chunk, [entry('b'), entry('x', false)])).toEqual({ next: chunk, changed: false, past: [], inside: [] });
    const full = Array.from({ length: DIRECTORY_CHUNK_SIZE }, (_, i) => entry(`k${String(i).padStart(5, '0')}`));
    const past = placeAll(full, [entry('z'), entry('k00001', false), entry('y')]);
    expect(past.past.map((e) => e.k)).toEqual(['y', 'z']);
    expect(past.changed).toBe(true);
    // Inside its range a full chunk takes no new user (it is split first); a listed one is replaced in place.
    const inside = placeAll(full, [entry('k00000a'), entry('a'), { ...entry('k00002'), uid: 'renamed' }]);
    expect(inside.inside.map((e) => e.k)).toEqual(['a', 'k00000a']);
    expect(inside.next).toHaveLength(DIRECTORY_CHUNK_SIZE);
    expect(inside.next[2]?.uid).toBe('renamed');
  });

  it('splits a full chunk in two under ids no other chunk takes, the lower half keeping its place (ADR 0142, amended)', () => {
    const full = Array.from({ length: DIRECTORY_CHUNK_SIZE }, (_, i) => entry(`k${String(i).padStart(5, '0')}`, i !== 0));
    expect(needsSplit(full, entry('k00001a'))).toBe(true);
    expect(needsSplit(full, entry('a'))).toBe(true);
    expect(needsSplit(full, entry('k00001'))).toBe(false);
    expect(needsSplit(full, entry('z'))).toBe(false);
    expect(needsSplit(full, entry('k00001a', false))).toBe(false);
    expect(needsSplit(full.slice(1), entry('k00001a'))).toBe(false);
    const refs = [{ id: 4, first: 'a', front: true as const, live: 3 }, { id: 1, first: 'k', live: DIRECTORY_CHUNK_SIZE - 1 }, { id: 2, first: 'z', live: 1 }];
    expect(nextChunkId(refs)).toBe(5);
    expect(nextChunkId([])).toBe(0);
    const marked = withSplitMarked(refs, 1);
    expect(marked[1]).toEqual({ ...refs[1], splitInto: [5, 6] });
    expect(nextChunkId(marked)).toBe(7);
    const { low, high } = splitHalves(full);
    expect([low.length, high.length]).toEqual([DIRECTORY_CHUNK_SIZE / 2, DIRECTORY_CHUNK_SIZE / 2]);
    expect([...low, ...high]).toEqual(full);
    expect(withSplitDone(marked, 1, low, high)).toEqual([
      refs[0],
      { id: 5, first: 'k', live: DIRECTORY_CHUNK_SIZE / 2 - 1 },
      { id: 6, first: (high[0] as DirectoryEntry).k, live: DIRECTORY_CHUNK_SIZE / 2 },
      refs[2],
    ]);
    // Done already (by another writer): nothing changes.
    const done = withSplitDone(marked, 1, low, high);
    expect(withSplitDone(done, 1, low, high)).toEqual(done);
    expect(withSplitDone(withSplitMarked(refs, 4), 4, [entry('a')], [entry('b')])[0]).toEqual({ id: 5, first: 'a', front: true, live: 1 });
  });

  it('maps a page onto the chunks that hold it, counting live entries only', () => {
    const refs = [{ id: 0, first: 'a', live: 3 }, { id: 1, first: 'f', live: 0 }, { id: 2, first: 'k', live: 4 }];
    expect(pageWindow(refs, 0, 2)).toEqual({ total: 7, chunkIds: [0], skip: 0 });
    expect(pageWindow(refs, 2, 3)).toEqual({ total: 7, chunkIds: [0, 2], skip: 2 });
    expect(pageWindow(refs, 5, 10)).toEqual({ total: 7, chunkIds: [2], skip: 2 });
    expect(pageWindow(refs, 7, 10)).toEqual({ total: 7, chunkIds: [], skip: 0 });
  });

  it('builds chunks of the fixed size with their first keys and live counts', () => {
    const entries = Array.from({ length: DIRECTORY_CHUNK_SIZE + 5 }, (_, i) => entry(`k${String(i).padStart(5, '0')}`, i !== 0));
    const { refs, chunks } = buildChunks(entries);
    expect(chunks.map((c) => c.length)).toEqual([DIRECTORY_CHUNK_SIZE, 5]);
    expect(refs).toEqual([
      { id: 0, first: 'k00000', live: DIRECTORY_CHUNK_SIZE - 1 },
      { id: 1, first: `k${String(DIRECTORY_CHUNK_SIZE).padStart(5, '0')}`, live: 5 },
    ]);
  });
});
