import type { Collection, Db } from 'mongodb';
import { chunkIndexFor, pageWindow } from '../../projections/users/userDirectory.js';
import type { DirectoryChunkRef, DirectoryEntry } from '../../projections/users/userDirectory.js';
import type { UserDoc } from '../../projections/users/users.js';

/**
 * Both documents keep their lists as JSON text: FerretDB's SQLite backend parses every stored row
 * it passes while looking for a match, and a long string is far cheaper to pass than nested
 * documents (and it sidesteps the key restrictions of ADR 0002).
 */
export interface DirectoryDoc {
  _id: string;
  chunks: string;
  rev: number;
}

export interface ChunkDoc {
  _id: string;
  entries: string;
  rev: number;
  /** Closed to every write: being split into two new chunks the directory names (ADR 0142, amended). */
  sealed?: true;
}

export interface Directory {
  chunks: DirectoryChunkRef[];
  rev: number;
}

export interface Chunk {
  id: string;
  entries: DirectoryEntry[];
  rev: number;
  sealed?: true;
}

/** An app's default listing as every reader of it sees it: what chatctl's rebuild compares (ADR 0145). */
export interface DirectoryListing {
  _id: string;
  total: number;
  /** Every listed user, in order, as the pages by offset show them. */
  users: UserDoc[];
  /** Chunks whose count in the directory differs from the users they list (pages by offset would skew). */
  miscounted: number;
  /** Whether walking by cursor (100 a page) lists other users than the pages by offset. */
  cursorDiffers: boolean;
}

/** The reads of the user directory: its pages by offset and by cursor, and the stored documents. */
export class UserDirectoryPages {
  readonly directories: Collection<DirectoryDoc>;
  readonly chunks: Collection<ChunkDoc>;

  constructor(db: Db) {
    this.directories = db.collection<DirectoryDoc>('userdirectories');
    this.chunks = db.collection<ChunkDoc>('userdirectorychunks');
  }

  chunkId(appId: string, id: number): string {
    return `${appId}:${id}`;
  }

  async readDirectory(appId: string): Promise<Directory | null> {
    const doc = await this.directories.findOne({ _id: appId });
    return doc ? { chunks: JSON.parse(doc.chunks) as DirectoryChunkRef[], rev: doc.rev } : null;
  }

  async readChunk(appId: string, id: number): Promise<Chunk | null> {
    const doc = await this.chunks.findOne({ _id: this.chunkId(appId, id) });
    return doc ? { id: doc._id, entries: JSON.parse(doc.entries) as DirectoryEntry[], rev: doc.rev, ...(doc.sealed ? { sealed: doc.sealed } : {}) } : null;
  }

  /** One page of the default listing (the users' documents, in order) and the number of listed users. */
  async page(appId: string, page: number, perPage: number): Promise<{ total: number; users: UserDoc[] }> {
    const directory = await this.readDirectory(appId);
    if (!directory) return { total: 0, users: [] };
    const window = pageWindow(directory.chunks, (page - 1) * perPage, perPage);
    const chunks = await Promise.all(window.chunkIds.map((id) => this.readChunk(appId, id)));
    const live = chunks.flatMap((chunk) => (chunk ? chunk.entries.filter((e) => e.live) : []));
    const users = live.slice(window.skip, window.skip + perPage).flatMap((e) => (e.user ? [e.user] : []));
    return { total: window.total, users };
  }

  /**
   * The default listing's users after `key` (a cursor's): from the chunk holding the key on, chunk
   * after chunk until the page and one more user are found.
   */
  async pageAfter(appId: string, key: string, perPage: number): Promise<{ total: number; users: UserDoc[]; more: boolean }> {
    const directory = await this.readDirectory(appId);
    if (!directory) return { total: 0, users: [], more: false };
    // Chunks are kept in key order (a new one is named at its place in it, ADR 0142).
    const ordered = directory.chunks;
    const found: UserDoc[] = [];
    for (let index = chunkIndexFor(ordered, key); index < ordered.length && found.length <= perPage; index++) {
      const chunk = await this.readChunk(appId, (ordered[index] as DirectoryChunkRef).id);
      for (const entry of chunk?.entries ?? []) if (entry.live && entry.k > key && entry.user) found.push(entry.user);
    }
    return { total: ordered.reduce((sum, c) => sum + c.live, 0), users: found.slice(0, perPage), more: found.length > perPage };
  }

  /**
   * Every app's listing as read (tools: chatctl's rebuild compares these, ADR 0145). How the listing is
   * cut into chunks depends on the order users arrived in (ADR 0142), so the chunks are not compared. An
   * empty listing reads as no directory (a rebuild that sees a user created and deleted in one batch
   * writes none) and is left out.
   */
  async listings(): Promise<DirectoryListing[]> {
    const apps = await this.directories.find({}, { projection: { _id: 1 } }).toArray();
    const listings = await Promise.all(apps.map(({ _id }) => this.listing(_id)));
    return listings.filter((listing) => listing.total > 0 || listing.users.length > 0 || listing.miscounted > 0 || listing.cursorDiffers);
  }

  private async listing(appId: string): Promise<DirectoryListing> {
    const directory = await this.readDirectory(appId);
    const refs = directory?.chunks ?? [];
    const chunks = await Promise.all(refs.map((ref) => this.readChunk(appId, ref.id)));
    const miscounted = refs.filter((ref, i) => ref.live !== (chunks[i]?.entries.filter((e) => e.live).length ?? 0)).length;
    const total = refs.reduce((sum, ref) => sum + ref.live, 0);
    const { users } = await this.page(appId, 1, Math.max(total, 1));
    const walked: UserDoc[] = [];
    for (let key = ''; ; ) {
      const next = await this.pageAfter(appId, key, 100);
      walked.push(...next.users);
      const last = next.users.at(-1);
      if (!next.more || !last) break;
      key = last.listKey;
    }
    const cursorDiffers = JSON.stringify(walked.map((u) => u.uid)) !== JSON.stringify(users.map((u) => u.uid));
    return { _id: appId, total, users, miscounted, cursorDiffers };
  }
}
