import { RecentlyUsed } from '@chat/eventsourcing';
import { isDuplicateKeyError } from '@chat/mongo';
import type { Db } from 'mongodb';
import type { DirectoryChunkRef, DirectoryEntry } from '../../projections/users/userDirectory.js';
import { UserDirectoryPages } from './userDirectoryPages.js';
import type { Chunk, Directory } from './userDirectoryPages.js';

/** Apps whose directory, and chunks, whose last known revision a process keeps for its next write (ADR 0132). */
const KNOWN_DIRECTORIES = 1_000;
const KNOWN_CHUNKS = 64;

/**
 * The user directory's documents as one process writes them: every write a compare-and-set on `rev`
 * (or an insert that fails on a duplicate id), and the state this process last read or wrote.
 */
export class DirectoryStore {
  readonly pages: UserDirectoryPages;
  /**
   * The directories and chunks as this process last read or wrote them, for its next write (ADR 0132):
   * an import's requests each add to the same tail chunk, and reading back what the previous request
   * wrote cost every request two reads of a chunk of up to 250 users and two of the directory. Exact:
   * every write names the revision it was decided on (compare-and-set), so a state another writer
   * has moved past only loses the write, which is forgotten and decided again on the store's. A sync
   * that finds nothing to write in a remembered chunk reads the stored one before it concludes so; a
   * count found already recorded in a remembered directory is recorded in the store's too (counts keep
   * the newest revision). Listings (`page`, `pageAfter`) always read the store.
   */
  private readonly knownDirectories = new RecentlyUsed<string, Directory>(KNOWN_DIRECTORIES);
  private readonly knownChunks = new RecentlyUsed<string, Chunk>(KNOWN_CHUNKS);

  constructor(db: Db) {
    this.pages = new UserDirectoryPages(db);
  }

  chunkId(appId: string, id: number): string {
    return this.pages.chunkId(appId, id);
  }

  /** For a write: the directory as this process last knew it, else as stored. */
  async knownDirectory(appId: string): Promise<Directory | null> {
    const known = this.knownDirectories.get(appId);
    if (known) return known;
    const directory = await this.pages.readDirectory(appId);
    if (directory) this.knownDirectories.set(appId, directory);
    return directory;
  }

  /** The directory as this process last wrote or read it, without a read. */
  rememberedDirectory(appId: string): Directory | undefined {
    return this.knownDirectories.peek(appId);
  }

  /**
   * For a write: the chunk as this process last knew it (`remembered`), else as stored. A sync that
   * finds nothing to write in a remembered chunk reads the stored one (`storedChunk`): another writer
   * may have listed a user since, whom this process's copy cannot show and would not remove.
   */
  async knownChunk(appId: string, id: number): Promise<{ chunk: Chunk | null; remembered: boolean }> {
    const known = this.knownChunks.get(this.chunkId(appId, id));
    if (known) return { chunk: known, remembered: true };
    return { chunk: await this.storedChunk(appId, id), remembered: false };
  }

  async storedChunk(appId: string, id: number): Promise<Chunk | null> {
    const chunk = await this.pages.readChunk(appId, id);
    if (chunk) this.knownChunks.set(chunk.id, chunk);
    else this.knownChunks.delete(this.chunkId(appId, id));
    return chunk;
  }

  /** After a lost compare-and-set: the app's next write starts from the store. */
  forget(appId: string, chunkId?: number): void {
    this.knownDirectories.delete(appId);
    if (chunkId !== undefined) this.knownChunks.delete(this.chunkId(appId, chunkId));
  }

  /**
   * Writes the chunk's entries (`sealed`: closed to every write, being split) if it is still at the
   * revision they were decided on; false after losing that race.
   */
  async replaceChunk(appId: string, chunk: Chunk, entries: DirectoryEntry[], sealed = false): Promise<boolean> {
    const replaced = await this.pages.chunks.replaceOne({ _id: chunk.id, rev: chunk.rev }, { entries: JSON.stringify(entries), rev: chunk.rev + 1, ...(sealed ? { sealed } : {}) });
    if (replaced.matchedCount !== 1) {
      this.knownChunks.delete(chunk.id);
      this.forget(appId);
      return false;
    }
    this.knownChunks.set(chunk.id, { id: chunk.id, entries, rev: chunk.rev + 1, ...(sealed ? { sealed } : {}) });
    return true;
  }

  /** Writes the directory's chunk list if it is still at `directory.rev`; false after losing that race. */
  async replaceDirectory(appId: string, directory: Directory, chunks: DirectoryChunkRef[]): Promise<boolean> {
    const updated = await this.pages.directories.replaceOne({ _id: appId, rev: directory.rev }, { chunks: JSON.stringify(chunks), rev: directory.rev + 1 });
    if (updated.matchedCount !== 1) {
      this.forget(appId);
      return false;
    }
    this.knownDirectories.set(appId, { chunks, rev: directory.rev + 1 });
    return true;
  }

  /** Inserts a new chunk; false (and the app forgotten) when one of that id exists already. */
  async insertChunk(appId: string, id: number, entries: DirectoryEntry[]): Promise<boolean> {
    try {
      await this.pages.chunks.insertOne({ _id: this.chunkId(appId, id), entries: JSON.stringify(entries), rev: 1 });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      this.forget(appId, id);
      return false;
    }
    this.knownChunks.set(this.chunkId(appId, id), { id: this.chunkId(appId, id), entries, rev: 1 });
    return true;
  }

  /** Inserts an app's first directory; false (and the app forgotten) when another writer made it first. */
  async insertDirectory(appId: string, chunks: DirectoryChunkRef[]): Promise<boolean> {
    try {
      await this.pages.directories.insertOne({ _id: appId, chunks: JSON.stringify(chunks), rev: 1 });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      this.forget(appId);
      return false;
    }
    this.knownDirectories.set(appId, { chunks, rev: 1 });
    return true;
  }

  /**
   * Writes a whole app's directory at once (bulk seeding and rebuilds, while no other process writes the
   * app: revisions start again at 1, which another process's remembered state could match).
   */
  async replaceAll(appId: string, refs: DirectoryChunkRef[], chunks: DirectoryEntry[][]): Promise<void> {
    // Nothing this process knew of the app may be written on. Every remembered chunk is dropped (a rare
    // bulk write; the app's old chunk ids are not known here).
    this.forget(appId);
    this.knownChunks.clear();
    await this.pages.chunks.deleteMany({ _id: { $regex: `^${appId}:` } });
    if (chunks.length > 0) {
      await this.pages.chunks.insertMany(chunks.map((entries, id) => ({ _id: this.chunkId(appId, id), entries: JSON.stringify(entries), rev: 1 })));
    }
    await this.pages.directories.replaceOne({ _id: appId }, { chunks: JSON.stringify(refs), rev: 1 }, { upsert: true });
  }
}
