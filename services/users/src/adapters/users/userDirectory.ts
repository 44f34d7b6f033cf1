import { setTimeout as sleep } from 'node:timers/promises';
import { Coalescer, RecentlyUsed, backoffDelay } from '@chat/eventsourcing';
import type { Backoff } from '@chat/eventsourcing';
import { isDuplicateKeyError } from '@chat/mongo';
import type { Collection, Db } from 'mongodb';
import {
  DIRECTORY_CHUNK_SIZE,
  buildChunks,
  chunkIndexFor,
  directoryEntry,
  liveCount,
  loweredFront,
  needsNewChunk,
  opensFront,
  placeAll,
  placeEntry,
  recounted,
  withChunkAt,
} from '../../projections/users/userDirectory.js';
import type { DirectoryChunkRef, DirectoryEntry } from '../../projections/users/userDirectory.js';
import type { UserDoc } from '../../projections/users/users.js';
import { UserDirectoryPages } from './userDirectoryPages.js';
import type { Chunk, ChunkDoc, Directory, DirectoryDoc, DirectoryListing } from './userDirectoryPages.js';

/** Listed entries no chunk may take, and where in the directory's chunks the chunk they open goes. */
interface Opening {
  position: number;
  entries: DirectoryEntry[];
}

const MAX_ATTEMPTS = 30;
/** Apps whose directory, and chunks, whose last known revision a process keeps for its next write (ADR 0132). */
const KNOWN_DIRECTORIES = 1_000;
const KNOWN_CHUNKS = 64;
/** Concurrent writers of one app's directory (the consumer, read-your-writes, replicas) back off apart. */
const CONTENTION_BACKOFF: Backoff = { baseMs: 2, maxMs: 100, jitter: 'equal' };

/**
 * Keeps the per-app directory in step with the users read model. `sync` is state-based (it makes
 * the directory agree with the user's current document), so running it again, or for a redelivered
 * event, changes nothing. Chunk and directory writes are compare-and-set on `rev`.
 */
export class UserDirectory {
  private readonly directories: Collection<DirectoryDoc>;
  private readonly chunks: Collection<ChunkDoc>;
  /** Listings always read the store. */
  private readonly pages: UserDirectoryPages;
  /**
   * One directory write at a time per app in this process: the read-your-writes path and the
   * consumer apply the same events, and racing each other on one chunk's compare-and-set cost every
   * user of a data import a retry; queued, the next batch places everything that waited at once.
   */
  private readonly batches = new Coalescer<UserDoc, undefined>(async (appId, docs) => {
    await this.syncBatch(appId, docs);
    return docs.map(() => undefined);
  });
  /**
   * The directories and chunks as this process last read or wrote them, for its next write (ADR 0132):
   * an import's requests each add to the same tail chunk, and reading back what the previous request
   * wrote cost every request two reads of a chunk of up to 250 users and two of the directory. Exact:
   * every write names the revision it was decided on (compare-and-set), so a state another writer
   * has moved past only loses the write, which is forgotten and decided again on the store's. A sync
   * that finds nothing to write in a remembered chunk reads the stored one before it concludes so; a
   * count found already recorded in a remembered directory is recorded in the store's too (counts keep
   * the newest revision, first keys only fall). Listings (`page`, `pageAfter`) always read the store.
   */
  private readonly knownDirectories = new RecentlyUsed<string, Directory>(KNOWN_DIRECTORIES);
  private readonly knownChunks = new RecentlyUsed<string, Chunk>(KNOWN_CHUNKS);

  constructor(db: Db) {
    this.pages = new UserDirectoryPages(db);
    this.directories = this.pages.directories;
    this.chunks = this.pages.chunks;
  }

  private chunkId(appId: string, id: number): string {
    return this.pages.chunkId(appId, id);
  }

  private readDirectory(appId: string): Promise<Directory | null> {
    return this.pages.readDirectory(appId);
  }

  private readChunk(appId: string, id: number): Promise<Chunk | null> {
    return this.pages.readChunk(appId, id);
  }

  /** For a write: the directory as this process last knew it, else as stored. */
  private async knownDirectory(appId: string): Promise<Directory | null> {
    const known = this.knownDirectories.get(appId);
    if (known) return known;
    const directory = await this.readDirectory(appId);
    if (directory) this.knownDirectories.set(appId, directory);
    return directory;
  }

  /**
   * For a write: the chunk as this process last knew it (`remembered`), else as stored. A sync that
   * finds nothing to write in a remembered chunk reads the stored one (`storedChunk`): another writer
   * may have listed a user since, whom this process's copy cannot show and would not remove.
   */
  private async knownChunk(appId: string, id: number): Promise<{ chunk: Chunk | null; remembered: boolean }> {
    const known = this.knownChunks.get(this.chunkId(appId, id));
    if (known) return { chunk: known, remembered: true };
    return { chunk: await this.storedChunk(appId, id), remembered: false };
  }

  private async storedChunk(appId: string, id: number): Promise<Chunk | null> {
    const chunk = await this.readChunk(appId, id);
    if (chunk) this.knownChunks.set(chunk.id, chunk);
    else this.knownChunks.delete(this.chunkId(appId, id));
    return chunk;
  }

  /** After a lost compare-and-set: the app's next write starts from the store. */
  private forget(appId: string, chunkId?: number): void {
    this.knownDirectories.delete(appId);
    if (chunkId !== undefined) this.knownChunks.delete(this.chunkId(appId, chunkId));
  }

  /** Writes the chunk's entries if it is still at the revision they were decided on; false after losing that race. */
  private async replaceChunk(appId: string, chunk: Chunk, entries: DirectoryEntry[]): Promise<boolean> {
    const replaced = await this.chunks.replaceOne({ _id: chunk.id, rev: chunk.rev }, { entries: JSON.stringify(entries), rev: chunk.rev + 1 });
    if (replaced.matchedCount !== 1) {
      this.knownChunks.delete(chunk.id);
      this.forget(appId);
      return false;
    }
    this.knownChunks.set(chunk.id, { id: chunk.id, entries, rev: chunk.rev + 1 });
    return true;
  }

  /** Writes the directory's chunk list if it is still at `directory.rev`; false after losing that race. */
  private async replaceDirectory(appId: string, directory: Directory, chunks: DirectoryChunkRef[]): Promise<boolean> {
    const updated = await this.directories.replaceOne({ _id: appId, rev: directory.rev }, { chunks: JSON.stringify(chunks), rev: directory.rev + 1 });
    if (updated.matchedCount !== 1) {
      this.forget(appId);
      return false;
    }
    this.knownDirectories.set(appId, { chunks, rev: directory.rev + 1 });
    return true;
  }

  /** Inserts a new chunk; false (and the app forgotten) when one of that id exists already. */
  private async insertChunk(appId: string, id: number, entries: DirectoryEntry[]): Promise<boolean> {
    try {
      await this.chunks.insertOne({ _id: this.chunkId(appId, id), entries: JSON.stringify(entries), rev: 1 });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      this.forget(appId, id);
      return false;
    }
    this.knownChunks.set(this.chunkId(appId, id), { id: this.chunkId(appId, id), entries, rev: 1 });
    return true;
  }

  /** Inserts an app's first directory; false (and the app forgotten) when another writer made it first. */
  private async insertDirectory(appId: string, chunks: DirectoryChunkRef[]): Promise<boolean> {
    try {
      await this.directories.insertOne({ _id: appId, chunks: JSON.stringify(chunks), rev: 1 });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      this.forget(appId);
      return false;
    }
    this.knownDirectories.set(appId, { chunks, rev: 1 });
    return true;
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
    const id = directory && directory.chunks.length > 0 ? Math.max(...directory.chunks.map((c) => c.id)) + 1 : 0;
    // In front of existing chunks: keys below it may lower its `first` while it has room (`loweredFront`).
    const front = position === 0 && directory !== null && directory.chunks.length > 0 ? { front: true as const } : {};
    const ref: DirectoryChunkRef = { id, first: (sorted[0] as DirectoryEntry).k, ...front, live: liveCount(sorted) };
    const named = directory ? await this.replaceDirectory(appId, directory, withChunkAt(directory.chunks, position, ref)) : await this.insertDirectory(appId, [ref]);
    return named && (await this.insertChunk(appId, id, sorted)) ? new Set(sorted) : null;
  }

  /**
   * Places what it can chunk by chunk; answers what is left (listed entries that open chunks, by the
   * position each opens at; entries whose chunk is missing), or null after losing a race.
   */
  private async trySyncBatch(appId: string, entries: readonly DirectoryEntry[]): Promise<{ directory: Directory | null; openings: Opening[]; orphaned: DirectoryEntry[] } | null> {
    const stored = await this.knownDirectory(appId);
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
      [...perChunk].map(async ([index, chunkEntries]) => {
        const ref = directory.chunks[index] as DirectoryChunkRef;
        const known = await this.knownChunk(appId, ref.id);
        let chunk = known.chunk;
        let placing = chunk ? placeAll(chunk.entries, chunkEntries) : null;
        // Entries past a full chunk need no second look: a full chunk never takes a key past its last.
        if (chunk && known.remembered && placing && !placing.changed && placing.past.length < chunkEntries.length) {
          chunk = await this.storedChunk(appId, ref.id);
          placing = chunk ? placeAll(chunk.entries, chunkEntries) : null;
        }
        if (!chunk || !placing) {
          orphaned.push(...chunkEntries);
          return true;
        }
        const { next, changed } = placing;
        if (placing.past.length > 0) openings.push({ position: index + 1, entries: placing.past });
        if (changed && !(await this.replaceChunk(appId, chunk, next))) return false;
        await this.recount(appId, ref.id, liveCount(next), changed ? chunk.rev + 1 : chunk.rev);
        return true;
      }),
    );
    if (!placed.every(Boolean)) return null;
    // The recounts may have written the directory this process knows: a chunk opened now is named on
    // that revision when it lists the same chunks (only counts differ), not on the one read before.
    const recounted = this.knownDirectories.peek(appId);
    const sameChunks = recounted !== undefined && recounted.chunks.length === directory.chunks.length && recounted.chunks.every((c, i) => c.id === directory.chunks[i]?.id);
    return { directory: sameChunks ? recounted : directory, openings, orphaned };
  }

  private async trySync(appId: string, entry: DirectoryEntry): Promise<boolean> {
    const stored = await this.knownDirectory(appId);
    if (!stored || stored.chunks.length === 0) return entry.live ? (await this.openChunkFor(appId, stored, 0, [entry])) !== null : true;
    const directory = await this.withFrontLowered(appId, stored, [entry]);
    if (!directory) return false;
    if (opensFront(directory.chunks, entry)) return (await this.openChunkFor(appId, directory, 0, [entry])) !== null;
    const index = chunkIndexFor(directory.chunks, entry.k);
    const ref = directory.chunks[index] as DirectoryChunkRef;
    const known = await this.knownChunk(appId, ref.id);
    let chunk = known.chunk;
    if (!chunk) return this.createMissingChunk(appId, ref.id, entry);
    if (needsNewChunk(chunk.entries, entry)) return (await this.openChunkFor(appId, directory, index + 1, [entry])) !== null;
    if (known.remembered && placeEntry(chunk.entries, entry) === null) {
      chunk = await this.storedChunk(appId, ref.id);
      if (!chunk) return this.createMissingChunk(appId, ref.id, entry);
      if (needsNewChunk(chunk.entries, entry)) return (await this.openChunkFor(appId, directory, index + 1, [entry])) !== null;
    }
    const next = placeEntry(chunk.entries, entry);
    if (next && !(await this.replaceChunk(appId, chunk, next))) return false;
    await this.recount(appId, ref.id, liveCount(next ?? chunk.entries), next ? chunk.rev + 1 : chunk.rev);
    return true;
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
    const known = await this.knownChunk(appId, first.id);
    if (known.chunk && known.chunk.entries.length >= DIRECTORY_CHUNK_SIZE) return directory;
    const chunk = known.remembered ? await this.storedChunk(appId, first.id) : known.chunk;
    const chunks = chunk ? loweredFront(directory.chunks, chunk.entries.length, entries) : null;
    if (!chunks) return directory;
    return (await this.replaceDirectory(appId, directory, chunks)) ? { chunks, rev: directory.rev + 1 } : null;
  }

  /**
   * A chunk the directory names but the store lacks (its opener has not written it yet, or crashed
   * in between) is created with `entry`, or with nothing for a removal; the caller's next attempt
   * then places the entry in it as in any chunk.
   */
  private async createMissingChunk(appId: string, id: number, entry: DirectoryEntry): Promise<boolean> {
    await this.insertChunk(appId, id, entry.live ? [entry] : []);
    return false;
  }

  /** Records a chunk's live count as counted from revision `chunkRev` of it (a late, older count changes nothing). */
  private async recount(appId: string, chunkId: number, live: number, chunkRev: number): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const directory = await this.knownDirectory(appId);
      if (!directory) return;
      const chunks = recounted(directory.chunks, chunkId, live, chunkRev);
      if (JSON.stringify(chunks) === JSON.stringify(directory.chunks)) return;
      if (await this.replaceDirectory(appId, directory, chunks)) return;
      await sleep(backoffDelay(attempt + 1, CONTENTION_BACKOFF));
    }
  }

  /** One page of the default listing (the users' documents, in order) and the number of listed users. */
  page(appId: string, page: number, perPage: number): Promise<{ total: number; users: UserDoc[] }> {
    return this.pages.page(appId, page, perPage);
  }

  /** The default listing's users after `key` (a cursor's). */
  pageAfter(appId: string, key: string, perPage: number): Promise<{ total: number; users: UserDoc[]; more: boolean }> {
    return this.pages.pageAfter(appId, key, perPage);
  }

  /** Every app's listing as read (tools: chatctl's rebuild compares these, ADR 0145). */
  listings(): Promise<DirectoryListing[]> {
    return this.pages.listings();
  }

  /**
   * Writes a whole app's directory at once from its user documents (bulk seeding and rebuilds, while no
   * other process writes the app: revisions start again at 1, which another process's remembered state
   * could match).
   */
  async replaceAll(appId: string, docs: readonly UserDoc[]): Promise<void> {
    const entries = docs.map(directoryEntry).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
    const { refs, chunks } = buildChunks(entries);
    // Its revisions start again at 1: nothing this process knew of the app may be written on. Every
    // remembered chunk is dropped (a rare bulk write; the app's old chunk ids are not known here).
    this.forget(appId);
    this.knownChunks.clear();
    await this.chunks.deleteMany({ _id: { $regex: `^${appId}:` } });
    if (chunks.length > 0) {
      await this.chunks.insertMany(
        chunks.map((chunkEntries, id) => ({ _id: this.chunkId(appId, id), entries: JSON.stringify(chunkEntries), rev: 1 })),
      );
    }
    await this.directories.replaceOne({ _id: appId }, { chunks: JSON.stringify(refs), rev: 1 }, { upsert: true });
  }
}
