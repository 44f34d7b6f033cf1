import type { UserDoc } from './users.js';

/**
 * The default user listing as ordered chunks holding the listed users themselves, so a page costs
 * two reads of small documents whatever the app's size. Measured on FerretDB v1 (SQLite): no index
 * is ever used (its `_id` index expression differs from the one its queries use), so every filter,
 * sort and count scans the collection (~2 s at 50,000 users), and even `findOne({_id})` costs in
 * proportion to the rows stored before the match.
 *
 * Pure: the adapter reads and writes the documents these functions compute.
 */
export const DIRECTORY_CHUNK_SIZE = 250;

/**
 * `k` is the user's list key (creation time, then uid); `live` means listed by default, and then
 * `user` is the user's read-model document as the list shows it; `v` is the version of the user's
 * stream the entry reflects (absent: written before versions were kept).
 */
export interface DirectoryEntry {
  k: string;
  uid: string;
  live: boolean;
  v?: number;
  user?: UserDoc;
}

export function directoryEntry(doc: UserDoc): DirectoryEntry {
  const v = doc.version !== undefined ? { v: doc.version } : {};
  return doc.state === 'active' ? { k: doc.listKey, uid: doc.uid, live: true, ...v, user: doc } : { k: doc.listKey, uid: doc.uid, live: false, ...v };
}

export interface DirectoryChunkRef {
  id: number;
  /**
   * Smallest key the chunk may hold. Listed keys below every chunk's `first` open a chunk in front
   * (`opensFront`) or lower the `first` of one opened so (`front`, `loweredFront`); older data may have
   * lowered a first chunk's `first` to such a key (ADR 0142).
   */
  first: string;
  /**
   * Opened in front of every chunk by keys below them all (an import of an older history): while it is
   * the first chunk and has room, a key below its `first` lowers it instead of opening another chunk.
   */
  front?: true;
  /**
   * Being split into two new chunks of these ids (ADR 0142, amended): readers still read this chunk,
   * which holds every entry until the directory names the two in its place; writers finish the split
   * (`finishSplit`) before they write.
   */
  splitInto?: [number, number];
  live: number;
  /**
   * The chunk's revision `live` was counted from (absent: 1 or older data). Writers on several
   * replicas count a chunk each from the revision they wrote; a count from an older revision
   * arriving late must not replace a newer one.
   */
  rev?: number;
}

/**
 * The refs with one chunk's live count (if counted from a revision at least as new) updated. A count
 * never moves a chunk's `first`: every key placed in a chunk lies in its range (ADR 0142).
 */
export function recounted(chunks: readonly DirectoryChunkRef[], chunkId: number, live: number, chunkRev: number): DirectoryChunkRef[] {
  return chunks.map((c) => (c.id === chunkId && chunkRev >= (c.rev ?? 1) ? { ...c, live, rev: chunkRev } : c));
}

export function listKey(occurredAt: string, uid: string): string {
  return `${occurredAt}|${uid}`;
}

/** Index (in `chunks`) of the chunk whose key range holds `key`. */
export function chunkIndexFor(chunks: readonly DirectoryChunkRef[], key: string): number {
  let index = 0;
  for (let i = 0; i < chunks.length; i++) if ((chunks[i] as DirectoryChunkRef).first <= key) index = i;
  return index;
}

export function liveCount(entries: readonly DirectoryEntry[]): number {
  return entries.reduce((count, entry) => count + (entry.live ? 1 : 0), 0);
}

/**
 * The entries with `entry` in place (inserted in key order, or replacing its older self); null when
 * nothing changes. A listed entry of a newer version stays: every replica's consumer and
 * read-your-writes path syncs the directory, and one holding a user's older document (a creation
 * applied again after another replica wrote the deletion) must not list the user again.
 */
export function placeEntry(entries: readonly DirectoryEntry[], entry: DirectoryEntry): DirectoryEntry[] | null {
  const at = entries.findIndex((existing) => existing.k >= entry.k);
  const existing = at === -1 ? undefined : entries[at];
  if (existing && existing.k === entry.k) {
    if ((existing.v ?? 0) > (entry.v ?? 0)) return null;
    if (JSON.stringify(existing) === JSON.stringify(entry)) return null;
    return entries.map((e, i) => (i === at ? entry : e));
  }
  if (!entry.live) return null;
  const next = [...entries];
  next.splice(at === -1 ? entries.length : at, 0, entry);
  return next;
}

/**
 * A chunk's entries with `entries` placed in key order (`changed` when any placement changed it), the
 * listed ones new to it that open a chunk of their own right after it (`past`: the chunk is full and
 * their keys lie beyond its last entry, `needsNewChunk`), and those it has no room for inside its range
 * (`inside`: the chunk is split first, `needsSplit`).
 */
export function placeAll(chunk: DirectoryEntry[], entries: readonly DirectoryEntry[]): { next: DirectoryEntry[]; changed: boolean; past: DirectoryEntry[]; inside: DirectoryEntry[] } {
  let next = chunk;
  let changed = false;
  const past: DirectoryEntry[] = [];
  const inside: DirectoryEntry[] = [];
  for (const entry of [...entries].sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))) {
    if (needsNewChunk(next, entry)) {
      past.push(entry);
      continue;
    }
    if (needsSplit(next, entry)) {
      inside.push(entry);
      continue;
    }
    const after = placeEntry(next, entry);
    if (after) [next, changed] = [after, true];
  }
  return { next, changed, past, inside };
}

/**
 * Whether `entry` opens a new chunk right after this one: the chunk is full and the key lies beyond
 * its last entry. Any chunk, not only the last (ADR 0142): an import of users created before the
 * app's newest lands in an earlier chunk's range, which took every such user before and grew
 * without bound. A full chunk stays full (entries are never removed; a split seals it and names two new
 * chunks in its place), so no writer, on any replica, ever places a key past a full chunk's last entry:
 * the chunk opened after it cannot be overtaken.
 */
export function needsNewChunk(entries: readonly DirectoryEntry[], entry: DirectoryEntry): boolean {
  const last = entries.at(-1);
  return entry.live && entries.length >= DIRECTORY_CHUNK_SIZE && last !== undefined && entry.k > last.k;
}

/**
 * Whether a full chunk is asked to list a new user inside its range (not past its last entry): the
 * chunk is split in two first, so no chunk passes its size (ADR 0142, amended; before, such a key went
 * in and a chunk an interleaved import landed in grew without bound). A user already in it is replaced
 * in place, which does not grow it.
 */
export function needsSplit(entries: readonly DirectoryEntry[], entry: DirectoryEntry): boolean {
  const last = entries.at(-1);
  return entry.live && entries.length >= DIRECTORY_CHUNK_SIZE && last !== undefined && entry.k <= last.k && !entries.some((e) => e.k === entry.k);
}

/** A full chunk's entries cut in two halves (in key order) for a split. */
export function splitHalves(entries: readonly DirectoryEntry[]): { low: DirectoryEntry[]; high: DirectoryEntry[] } {
  const half = Math.floor(entries.length / 2);
  return { low: entries.slice(0, half), high: entries.slice(half) };
}

/** The id a new chunk gets: past every chunk's and every id a split has reserved (a split chunk's id is never reused). */
export function nextChunkId(chunks: readonly DirectoryChunkRef[]): number {
  return Math.max(-1, ...chunks.flatMap((c) => [c.id, ...(c.splitInto ?? [])])) + 1;
}

/** The refs with chunk `id` marked as being split into two chunks of new ids. */
export function withSplitMarked(chunks: readonly DirectoryChunkRef[], id: number): DirectoryChunkRef[] {
  const low = nextChunkId(chunks);
  return chunks.map((c) => (c.id === id ? { ...c, splitInto: [low, low + 1] } : c));
}

/**
 * The refs with a chunk being split replaced by its two halves: the lower keeps its `first` (and its
 * place in front), the upper starts at its first entry. Counts are those of the halves as written.
 */
export function withSplitDone(chunks: readonly DirectoryChunkRef[], id: number, low: readonly DirectoryEntry[], high: readonly DirectoryEntry[]): DirectoryChunkRef[] {
  return chunks.flatMap((c) => {
    if (c.id !== id || !c.splitInto) return [c];
    const [lowId, highId] = c.splitInto;
    const front = c.front ? { front: c.front } : {};
    return [
      { id: lowId, first: c.first, ...front, live: liveCount(low) },
      { id: highId, first: (high[0] as DirectoryEntry).k, live: liveCount(high) },
    ];
  });
}

/**
 * Whether `entry` opens a new chunk in front of every chunk: a listed key below the first chunk's
 * `first` (an imported user created before every listed one), unless `loweredFront` first lowered that
 * `first` by a compare-and-set of the directory. No chunk takes a key below the `first` the directory
 * names, so a chunk opened in front of it cannot be overtaken either.
 */
export function opensFront(chunks: readonly DirectoryChunkRef[], entry: DirectoryEntry): boolean {
  const first = chunks[0];
  return entry.live && first !== undefined && entry.k < first.first;
}

/**
 * The refs with the first chunk's `first` lowered to take as many of the listed keys below it as the
 * chunk has room for (the largest of them: the rest still lie below and open a chunk in front), or null
 * when nothing changes. Only a chunk opened in front (`front`) is lowered (ADR 0142, amended): users
 * imported one at a time, each older than every other, fill it instead of opening a chunk each. The
 * app's own first chunk never is: an import of users older than the app's own, arriving oldest first,
 * would land between its new first key and its old entries and grow it without bound. The lowering is
 * a compare-and-set of the directory made before any such key is placed, so no writer places a key
 * below a `first` that another writer's opening in front has since claimed.
 */
export function loweredFront(chunks: readonly DirectoryChunkRef[], firstChunkSize: number, entries: readonly DirectoryEntry[]): DirectoryChunkRef[] | null {
  const [first, ...rest] = chunks;
  const room = DIRECTORY_CHUNK_SIZE - firstChunkSize;
  if (!first?.front || room <= 0) return null;
  const below = entries.filter((entry) => opensFront(chunks, entry)).map((entry) => entry.k);
  const lowest = below.sort().reverse().slice(0, room).at(-1);
  return lowest === undefined ? null : [{ ...first, first: lowest }, ...rest];
}

/** The chunk list with `ref` at `position` (its place in key order). */
export function withChunkAt(chunks: readonly DirectoryChunkRef[], position: number, ref: DirectoryChunkRef): DirectoryChunkRef[] {
  return [...chunks.slice(0, position), ref, ...chunks.slice(position)];
}

export interface PageWindow {
  total: number;
  /** Chunk ids to read, in order. */
  chunkIds: number[];
  /** Live entries to skip in those chunks before the page starts. */
  skip: number;
}

export function pageWindow(chunks: readonly DirectoryChunkRef[], offset: number, limit: number): PageWindow {
  const total = chunks.reduce((sum, chunk) => sum + chunk.live, 0);
  const chunkIds: number[] = [];
  let before = 0;
  let skip = 0;
  for (const chunk of chunks) {
    const end = before + chunk.live;
    if (chunk.live > 0 && end > offset && before < offset + limit) {
      if (chunkIds.length === 0) skip = offset - before;
      chunkIds.push(chunk.id);
    }
    before = end;
  }
  return { total, chunkIds, skip };
}

/** Chunks for entries already in key order: what a rebuild or a bulk seed writes. */
export function buildChunks(entries: readonly DirectoryEntry[]): { refs: DirectoryChunkRef[]; chunks: DirectoryEntry[][] } {
  const chunks: DirectoryEntry[][] = [];
  for (let i = 0; i < entries.length; i += DIRECTORY_CHUNK_SIZE) chunks.push(entries.slice(i, i + DIRECTORY_CHUNK_SIZE));
  const refs = chunks.map((chunk, id) => ({ id, first: (chunk[0] as DirectoryEntry).k, live: liveCount(chunk) }));
  return { refs, chunks };
}
