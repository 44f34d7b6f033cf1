import { setTimeout as sleep } from 'node:timers/promises';
import { Coalescer, backoffDelay } from '@chat/eventsourcing';
import type { Backoff } from '@chat/eventsourcing';
import type { Db } from 'mongodb';
import {
  DIRECTORY_CHUNK_SIZE,
  buildChunks,
  chunkIndexFor,
  directoryEntry,
  liveCount,
  loweredFront,
  needsNewChunk,
  needsSplit,
  nextChunkId,
  opensFront,
  placeAll,
  placeEntry,
  recounted,
  splitHalves,
  withChunkAt,
  withSplitDone,
  withSplitMarked,
} from '../../projections/users/userDirectory.js';
import type { DirectoryChunkRef, DirectoryEntry } from '../../projections/users/userDirectory.js';
import type { UserDoc } from '../../projections/users/users.js';
import type { Chunk, Directory, DirectoryListing } from './userDirectoryPages.js';
import { DirectoryStore } from './userDirectoryStore.js';

/** Listed entries no chunk may take, and where in the directory's chunks the chunk they open goes. */
interface Opening {
  position: number;
  entries: DirectoryEntry[];
}

const MAX_ATTEMPTS = 30;
/** Concurrent writers of one app's directory (the consumer, read-your-writes, replicas) back off apart. */
const CONTENTION_BACKOFF: Backoff = { baseMs: 2, maxMs: 100, jitter: 'equal' };

/**
 * Keeps the per-app directory in step with the users read model. `sync` is state-based (it makes
 * the directory agree with the user's current document), so running it again, or for a redelivered
 * event, changes nothing. Chunk and directory writes are compare-and-set on `rev`.
 */
export class UserDirectory {
  private readonly store: DirectoryStore;
  /**
   * One directory write at a time per app in this process: the read-your-writes path and the
   * consumer apply the same events, and racing each other on one chunk's compare-and-set cost every
   * user of a data import a retry; queued, the next batch places everything that waited at once.
   */
  private readonly batches = new Coalescer<UserDoc, undefined>(async (appId, docs) => {
    await this.syncBatch(appId, docs);
    return docs.map(() => undefined);
  });

  constructor(db: Db) {
    this.store = new DirectoryStore(db);
  }

  async sync(doc: UserDoc): Promise<void> {
    const entry = directoryEntry(doc);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (await this.trySync(doc.appId, entry)) return;
      await sleep(backoffDelay(attempt, CONTENTION_BACKOFF));
    }
    throw new Error(`user directory of ${doc.appId} kept changing while listing ${doc.uid}`);
  }

  /**
   * `sync` for many users at once (a batch of events, a data import): the entries of one chunk are
   * placed together with one compare-and-set write per chunk instead of one per user. Entries that
   * open a chunk, or find no directory yet, go through `sync` one at a time.
   */
  async syncAll(docs: readonly UserDoc[]): Promise<void> {
    await Promise.all(docs.map((doc) => this.batches.submit(doc.appId, doc)));
  }

  private async syncBatch(appId: string, docs: readonly UserDoc[]): Promise<void> {
    // The newest document of a user wins (a batch may hold one user twice).
    const latest = new Map(docs.map((doc) => [doc.uid, doc]));
    let pending = [...latest.values()].map(directoryEntry);
    // Rounds that place a chunk's worth make progress; only lost races count against the limit.
    for (let lost = 0; pending.length > 0; ) {
      if (lost >= MAX_ATTEMPTS) throw new Error(`user directory of ${appId} kept changing while listing ${pending.length} users`);
      const left = await this.trySyncBatch(appId, pending);
      if (left === null) {
        await sleep(backoffDelay(++lost, CONTENTION_BACKOFF));
        continue;
      }
      // A full chunk was split to take keys inside its range: everything is placed again on the halves.
      if (left.again) continue;
      for (const entry of left.orphaned) {
        const doc = latest.get(entry.uid);
        if (doc) await this.sync(doc);
      }
      // New users no chunk may take (a burst past a full chunk, an import of users created before the
      // app's first): one new chunk takes as many of one place as fit, and the next round places the
      // rest, instead of a chunk write and a directory write per user.
      const [opening] = left.openings;
      if (!opening) return;
      const opened = await this.openChunkFor(appId, left.directory, opening.position, opening.entries);
      if (!opened) await sleep(backoffDelay(++lost, CONTENTION_BACKOFF));
      pending = left.openings.flatMap(({ entries }) => entries).filter((entry) => !opened?.has(entry));
    }
  }

  /**
   * Opens a chunk at `position` of the directory's chunks (its place in key order) with the first
   * entries (up to a chunk's size), if the directory is still the one they were decided on; answers
   * the entries it placed, or null after losing a race. The directory names the chunk before the
   * chunk is written, so a lost race leaves nothing behind: a writer that finds the named chunk missing
   * in between creates it (the `orphaned` path) and this insert then fails.
   */
  private async openChunkFor(appId: string, directory: Directory | null, position: number, entries: readonly DirectoryEntry[]): Promise<Set<DirectoryEntry> | null> {
    const sorted = [...entries].sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0)).slice(0, DIRECTORY_CHUNK_SIZE);
    const id = directory ? nextChunkId(directory.chunks) : 0;
    // In front of existing chunks: keys below it may lower its `first` while it has room (`loweredFront`).
    const front = position === 0 && directory !== null && directory.chunks.length > 0 ? { front: true as const } : {};
    const ref: DirectoryChunkRef = { id, first: (sorted[0] as DirectoryEntry).k, ...front, live: liveCount(sorted) };
    const named = directory ? await this.store.replaceDirectory(appId, directory, withChunkAt(directory.chunks, position, ref)) : await this.store.insertDirectory(appId, [ref]);
    return named && (await this.store.insertChunk(appId, id, sorted)) ? new Set(sorted) : null;
  }

  /**
   * Places what it can chunk by chunk; answers what is left (listed entries that open chunks, by the
   * position each opens at; entries whose chunk is missing; `again` after a split, which places
   * nothing), or null after losing a race.
   */
  private async trySyncBatch(appId: string, entries: readonly DirectoryEntry[]): Promise<{ directory: Directory | null; openings: Opening[]; orphaned: DirectoryEntry[]; again?: true } | null> {
    const stored = await this.store.knownDirectory(appId);
    // No directory yet, or an emptied one: only listed users open a chunk (a removal has nothing to remove).
    if (!stored || stored.chunks.length === 0) {
      const listed = entries.filter((e) => e.live);
      return { directory: stored, openings: listed.length > 0 ? [{ position: 0, entries: listed }] : [], orphaned: [] };
    }
    const directory = await this.withFrontLowered(appId, stored, entries);
    if (!directory) return null;
    const perChunk = new Map<number, DirectoryEntry[]>();
    const front: DirectoryEntry[] = [];
    for (const entry of entries) {
      if (opensFront(directory.chunks, entry)) {
        front.push(entry);
        continue;
      }
      const index = chunkIndexFor(directory.chunks, entry.k);
      perChunk.set(index, [...(perChunk.get(index) ?? []), entry]);
    }
    const openings: Opening[] = front.length > 0 ? [{ position: 0, entries: front }] : [];
    const orphaned: DirectoryEntry[] = [];
    const placed = await Promise.all(
      [...perChunk].map(async ([index, chunkEntries]): Promise<'placed' | 'split' | 'lost'> => {
        const ref = directory.chunks[index] as DirectoryChunkRef;
        if (ref.splitInto) return this.finishSplit(appId, directory, ref);
        const known = await this.store.knownChunk(appId, ref.id);
        let chunk = known.chunk;
        let placing = chunk ? placeAll(chunk.entries, chunkEntries) : null;
        // Entries past a full chunk need no second look: a full chunk never takes a key past its last.
        if (chunk && known.remembered && placing && !placing.changed && placing.past.length + placing.inside.length < chunkEntries.length) {
          chunk = await this.store.storedChunk(appId, ref.id);
          placing = chunk ? placeAll(chunk.entries, chunkEntries) : null;
        }
        if (!chunk || !placing) {
          orphaned.push(...chunkEntries);
          return 'placed';
        }
        const waits = await this.splitFirst(appId, directory, ref, chunk, placing.inside);
        if (waits) return waits;
        const { next, changed } = placing;
        if (placing.past.length > 0) openings.push({ position: index + 1, entries: placing.past });
        if (changed && !(await this.store.replaceChunk(appId, chunk, next))) return 'lost';
        await this.recount(appId, ref.id, liveCount(next), changed ? chunk.rev + 1 : chunk.rev);
        return 'placed';
      }),
    );
    if (placed.includes('lost')) return null;
    if (placed.includes('split')) return { directory, openings: [], orphaned: [], again: true };
    // The recounts may have written the directory this process knows: a chunk opened now is named on
    // that revision when it lists the same chunks (only counts differ), not on the one read before.
    const latest = this.store.rememberedDirectory(appId);
    const sameChunks = latest !== undefined && latest.chunks.length === directory.chunks.length && latest.chunks.every((c, i) => c.id === directory.chunks[i]?.id);
    return { directory: sameChunks ? latest : directory, openings, orphaned };
  }

  private async trySync(appId: string, entry: DirectoryEntry): Promise<boolean> {
    const stored = await this.store.knownDirectory(appId);
    if (!stored || stored.chunks.length === 0) return entry.live ? (await this.openChunkFor(appId, stored, 0, [entry])) !== null : true;
    const directory = await this.withFrontLowered(appId, stored, [entry]);
    if (!directory) return false;
    if (opensFront(directory.chunks, entry)) return (await this.openChunkFor(appId, directory, 0, [entry])) !== null;
    const index = chunkIndexFor(directory.chunks, entry.k);
    const ref = directory.chunks[index] as DirectoryChunkRef;
    if (ref.splitInto) {
      await this.finishSplit(appId, directory, ref);
      return false;
    }
    const known = await this.store.knownChunk(appId, ref.id);
    let chunk = known.chunk;
    if (!chunk) return this.createMissingChunk(appId, ref.id, entry);
    if (known.remembered && placeEntry(chunk.entries, entry) === null && !needsNewChunk(chunk.entries, entry) && !needsSplit(chunk.entries, entry)) {
      chunk = await this.store.storedChunk(appId, ref.id);
      if (!chunk) return this.createMissingChunk(appId, ref.id, entry);
    }
    if (await this.splitFirst(appId, directory, ref, chunk, needsSplit(chunk.entries, entry) ? [entry] : [])) return false;
    if (needsNewChunk(chunk.entries, entry)) return (await this.openChunkFor(appId, directory, index + 1, [entry])) !== null;
    const next = placeEntry(chunk.entries, entry);
    if (next && !(await this.store.replaceChunk(appId, chunk, next))) return false;
    await this.recount(appId, ref.id, liveCount(next ?? chunk.entries), next ? chunk.rev + 1 : chunk.rev);
    return true;
  }

  /**
   * Whether a write to `chunk` must be decided again: it is sealed (the directory it was routed by is
   * older than the chunk's split), or it is full and asked to take new keys inside its range (`inside`),
   * so it is split first (ADR 0142, amended: no chunk passes its size).
   */
  private async splitFirst(appId: string, directory: Directory, ref: DirectoryChunkRef, chunk: Chunk, inside: readonly DirectoryEntry[]): Promise<'split' | 'lost' | null> {
    if (chunk.sealed) {
      this.store.forget(appId, ref.id);
      return 'lost';
    }
    if (inside.length === 0) return null;
    const chunks = withSplitMarked(directory.chunks, ref.id);
    if (!(await this.store.replaceDirectory(appId, directory, chunks))) return 'lost';
    return this.finishSplit(appId, { chunks, rev: directory.rev + 1 }, chunks.find((c) => c.id === ref.id) as DirectoryChunkRef);
  }

  /**
   * Finishes the split of a chunk the directory marks (`splitInto`), whoever began it: seals the chunk
   * (no writer places anything in it after that), inserts its two halves under the ids the mark
   * reserved (the same entries whoever inserts them: a duplicate is another writer's identical insert),
   * then names them in its place in the directory, the one write that makes the split visible. Until
   * then readers read the sealed chunk, which holds every entry. Answers 'split' when done (by this
   * writer or another), 'lost' when the directory kept moving.
   */
  private async finishSplit(appId: string, directory: Directory, ref: DirectoryChunkRef): Promise<'split' | 'lost'> {
    const [low, high] = ref.splitInto as [number, number];
    let chunk = await this.store.storedChunk(appId, ref.id);
    for (let attempt = 0; chunk && !chunk.sealed && attempt < MAX_ATTEMPTS; attempt++) {
      if (await this.store.replaceChunk(appId, chunk, chunk.entries, true)) chunk = { ...chunk, rev: chunk.rev + 1, sealed: true };
      else chunk = await this.store.storedChunk(appId, ref.id);
    }
    if (!chunk?.sealed) return 'lost';
    const halves = splitHalves(chunk.entries);
    await Promise.all([this.store.insertChunk(appId, low, halves.low), this.store.insertChunk(appId, high, halves.high)]);
    for (let current: Directory | null = directory, attempt = 0; attempt < MAX_ATTEMPTS; attempt++, current = await this.store.knownDirectory(appId)) {
      if (!current?.chunks.some((c) => c.id === ref.id && c.splitInto)) return 'split';
      if (await this.store.replaceDirectory(appId, current, withSplitDone(current.chunks, ref.id, halves.low, halves.high))) return 'split';
    }
    return 'lost';
  }

  /**
   * The directory with a chunk opened in front lowered to take listed keys below it while it has room
   * (`loweredFront`, ADR 0142 amended), written before they are placed; the same directory when nothing
   * lies below or there is no such room; null after losing the race to write it. The first chunk's
   * size is read from the store: a remembered copy may miss entries another writer placed since.
   */
  private async withFrontLowered(appId: string, directory: Directory, entries: readonly DirectoryEntry[]): Promise<Directory | null> {
    const first = directory.chunks[0];
    if (!first?.front || !entries.some((entry) => opensFront(directory.chunks, entry))) return directory;
    // A full chunk stays full (entries are never removed): a remembered full one needs no read.
    const known = await this.store.knownChunk(appId, first.id);
    if (known.chunk && known.chunk.entries.length >= DIRECTORY_CHUNK_SIZE) return directory;
    const chunk = known.remembered ? await this.store.storedChunk(appId, first.id) : known.chunk;
    const chunks = chunk ? loweredFront(directory.chunks, chunk.entries.length, entries) : null;
    if (!chunks) return directory;
    return (await this.store.replaceDirectory(appId, directory, chunks)) ? { chunks, rev: directory.rev + 1 } : null;
  }

  /**
   * A chunk the directory names but the store lacks (its opener has not written it yet, or crashed
   * in between) is created with `entry`, or with nothing for a removal; the caller's next attempt
   * then places the entry in it as in any chunk.
   */
  private async createMissingChunk(appId: string, id: number, entry: DirectoryEntry): Promise<boolean> {
    await this.store.insertChunk(appId, id, entry.live ? [entry] : []);
    return false;
  }

  /** Records a chunk's live count as counted from revision `chunkRev` of it (a late, older count changes nothing). */
  private async recount(appId: string, chunkId: number, live: number, chunkRev: number): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const directory = await this.store.knownDirectory(appId);
      if (!directory) return;
      const chunks = recounted(directory.chunks, chunkId, live, chunkRev);
      if (JSON.stringify(chunks) === JSON.stringify(directory.chunks)) return;
      if (await this.store.replaceDirectory(appId, directory, chunks)) return;
      await sleep(backoffDelay(attempt + 1, CONTENTION_BACKOFF));
    }
  }

  /** One page of the default listing (the users' documents, in order) and the number of listed users. */
  page(appId: string, page: number, perPage: number): Promise<{ total: number; users: UserDoc[] }> {
    return this.store.pages.page(appId, page, perPage);
  }

  /** The default listing's users after `key` (a cursor's). */
  pageAfter(appId: string, key: string, perPage: number): Promise<{ total: number; users: UserDoc[]; more: boolean }> {
    return this.store.pages.pageAfter(appId, key, perPage);
  }

  /** Every app's listing as read (tools: chatctl's rebuild compares these, ADR 0145). */
  listings(): Promise<DirectoryListing[]> {
    return this.store.pages.listings();
  }

  /**
   * Writes a whole app's directory at once from its user documents (bulk seeding and rebuilds, while no
   * other process writes the app: revisions start again at 1, which another process's remembered state
   * could match).
   */
  async replaceAll(appId: string, docs: readonly UserDoc[]): Promise<void> {
    const entries = docs.map(directoryEntry).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
    const { refs, chunks } = buildChunks(entries);
    await this.store.replaceAll(appId, refs, chunks);
  }
}
