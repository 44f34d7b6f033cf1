import type { EventEnvelope } from '@chat/contracts';

/**
 * The per-API-key audit trail (our extension, ADR 0034): every event an API key caused, kept as a
 * log sorted by (occurredAt, event id) and cut into chunks of a bounded size, so one key's busy day
 * never makes one huge document and a page is a few reads by `_id`.
 *
 * A head document per key names the chunks in key order (each with the smallest key it may hold and
 * its entry count). An entry's key decides its chunk, so a redelivered event always meets its first
 * copy and is dropped, whatever order the topics' partitions delivered it in. Retention drops whole
 * chunks from the old end and remembers the oldest key still kept (`horizon`): anything older that
 * arrives later, a replay from offset 0 included, is ignored rather than brought back.
 *
 * Pure: the adapter reads the head and the chunks these functions name, and writes what they return.
 */

/** A key id the management service minted (see app/keys.ts): system actors (`management`, `webhooks`, …) have none. */
const API_KEY_ID = /^[0-9a-f]{16}$/;

/**
 * Whether a record whose producer named its actor's key id (the `keyId` header) may leave an entry:
 * only an API key's. Without the header (published before producers set it) it cannot be told, so it
 * is read (ADR 0044).
 */
export function mayBeAudited(keyId: string | undefined): boolean {
  return keyId === undefined || API_KEY_ID.test(keyId);
}

export interface AuditEntry {
  /** Sort key: `occurredAt|eventId` (ISO 8601 times sort as text). */
  k: string;
  id: string;
  type: string;
  streamId: string;
  version: number;
  occurredAt: string;
  scope: string;
  /** The request that caused it (the envelope's correlation id): events a service derived from it share it. */
  requestId: string;
  /** The user the key acted on behalf of, when it did. */
  uid?: string;
  /** The event came from a data import (it still says which key imported it). */
  imported?: true;
}

export interface AuditChunkRef {
  /**
   * The chunk's name in its document id: a number never reused, and a random tag, so two writers
   * that split the same chunk at once (two replicas) never write the same document.
   */
  n: string;
  /** The smallest key the chunk may hold; the chunk holds keys up to the next chunk's `first`. */
  first: string;
  count: number;
}

export interface AuditHead {
  appId: string;
  keyId: string;
  /** In key order, oldest first. */
  chunks: AuditChunkRef[];
  /** The number the next new chunk takes. */
  nextChunk: number;
  /** Set once retention dropped something: keys below it are not kept. */
  horizon: string | null;
}

export interface AuditLimits {
  /** Entries per chunk document. */
  chunkEntries: number;
  /** Entries kept per key: at least this many, at most this plus one chunk. */
  retainedEntries: number;
}

export const DEFAULT_AUDIT_LIMITS: Readonly<AuditLimits> = Object.freeze({ chunkEntries: 200, retainedEntries: 10_000 });

export function auditHeadId(appId: string, keyId: string): string {
  return `${appId}:${keyId}`;
}

export function auditChunkId(appId: string, keyId: string, n: string): string {
  return `${appId}:${keyId}:${n}`;
}

/** The entry an event leaves in its key's trail, or null when no API key caused it. */
export function auditEntryOf(event: EventEnvelope): { appId: string; keyId: string; entry: AuditEntry } | null {
  const { keyId, scope, uid } = event.actor;
  if (!API_KEY_ID.test(keyId)) return null;
  const entry: AuditEntry = {
    k: `${event.occurredAt}|${event.id}`,
    id: event.id,
    type: event.type,
    streamId: event.streamId,
    version: event.version,
    occurredAt: event.occurredAt,
    scope,
    requestId: event.correlationId,
    ...(uid !== undefined ? { uid } : {}),
    ...(event.data['imported'] === true ? { imported: true as const } : {}),
  };
  return { appId: event.appId, keyId, entry };
}

/** Index (in `chunks`) of the chunk whose range holds `key`; keys below every chunk go to the first. */
export function chunkIndexFor(chunks: readonly AuditChunkRef[], key: string): number {
  let index = 0;
  for (let i = 0; i < chunks.length; i++) if ((chunks[i] as AuditChunkRef).first <= key) index = i;
  return index;
}

/** Entries the head still accepts (not below the horizon), once each, in key order. */
function admitted(head: AuditHead | null, entries: readonly AuditEntry[]): AuditEntry[] {
  const byKey = new Map<string, AuditEntry>();
  for (const entry of entries) if (!head?.horizon || entry.k >= head.horizon) byKey.set(entry.k, entry);
  return [...byKey.values()].sort(byKeyAscending);
}

function byKeyAscending(a: AuditEntry, b: AuditEntry): number {
  return a.k < b.k ? -1 : a.k > b.k ? 1 : 0;
}

/** The chunk numbers `appendEntries` needs the contents of. */
export function chunksTouched(head: AuditHead | null, entries: readonly AuditEntry[]): string[] {
  if (!head || head.chunks.length === 0) return [];
  const touched = new Set<string>();
  for (const entry of admitted(head, entries)) touched.add((head.chunks[chunkIndexFor(head.chunks, entry.k)] as AuditChunkRef).n);
  return [...touched];
}

export interface AuditAppend {
  head: AuditHead;
  /** Chunks to write with their whole new contents: replaced, or inserted when in `created`. */
  chunks: Map<string, AuditEntry[]>;
  created: Set<string>;
  /** Chunks retention dropped (stored before this append). */
  dropped: string[];
}

/**
 * A chunk's stored entries that lie in its range. A writer that stopped between writing the head and
 * the chunks it split leaves entries behind that now belong to a newer chunk; they are not this
 * chunk's, and the next write of it drops them.
 */
export function clipToRange(head: AuditHead, n: string, entries: readonly AuditEntry[]): AuditEntry[] {
  const index = head.chunks.findIndex((c) => c.n === n);
  if (index === -1) return [];
  const lower = index === 0 ? head.horizon : (head.chunks[index] as AuditChunkRef).first;
  const upper = head.chunks[index + 1]?.first;
  return entries.filter((e) => (lower === null || e.k >= lower) && (upper === undefined || e.k < upper));
}

/**
 * The log after adding `entries`, given the contents of the chunks `chunksTouched` named; null when
 * nothing changes (every entry is already there or older than the horizon). A chunk that grows past
 * the limit is cut: the newest chunk into full chunks (appends are the usual case, so chunks stay
 * full), an older one into halves (a late event rarely comes alone, and halves leave it room).
 */
export function appendEntries(
  appId: string,
  keyId: string,
  stored: AuditHead | null,
  contents: ReadonlyMap<string, readonly AuditEntry[]>,
  entries: readonly AuditEntry[],
  limits: AuditLimits = DEFAULT_AUDIT_LIMITS,
  newTag: () => string = () => '',
): AuditAppend | null {
  const incoming = admitted(stored, entries);
  if (incoming.length === 0) return null;
  const head: AuditHead = stored
    ? { ...stored, chunks: stored.chunks.map((c) => ({ ...c })) }
    : { appId, keyId, chunks: [], nextChunk: 0, horizon: null };
  const chunks = new Map<string, AuditEntry[]>();
  const created = new Set<string>();
  const allocate = (): string => `${head.nextChunk++}${newTag()}`;
  if (head.chunks.length === 0) {
    const n = allocate();
    head.chunks.push({ n, first: (incoming[0] as AuditEntry).k, count: 0 });
    created.add(n);
    chunks.set(n, []);
  }

  const perChunk = new Map<string, AuditEntry[]>();
  for (const entry of incoming) {
    const ref = head.chunks[chunkIndexFor(head.chunks, entry.k)] as AuditChunkRef;
    perChunk.set(ref.n, [...(perChunk.get(ref.n) ?? []), entry]);
  }
  let changed = false;
  for (const [n, added] of perChunk) {
    const read = contents.get(n);
    const before = chunks.get(n) ?? (read ? clipToRange(head, n, read) : undefined);
    if (!before) throw new Error(`audit log ${appId}:${keyId}: chunk ${n} was not read`);
    const present = new Set(before.map((e) => e.k));
    const fresh = added.filter((e) => !present.has(e.k));
    if (fresh.length === 0) continue;
    changed = true;
    const merged = [...before, ...fresh].sort(byKeyAscending);
    splitInto(head, n, merged, limits, chunks, created, allocate);
  }
  if (!changed) return null;

  const dropped: string[] = [];
  let total = head.chunks.reduce((sum, c) => sum + c.count, 0);
  while (head.chunks.length > 1 && total - (head.chunks[0] as AuditChunkRef).count >= limits.retainedEntries) {
    const oldest = head.chunks.shift() as AuditChunkRef;
    total -= oldest.count;
    chunks.delete(oldest.n);
    if (created.has(oldest.n)) created.delete(oldest.n);
    else dropped.push(oldest.n);
    head.horizon = (head.chunks[0] as AuditChunkRef).first;
  }
  return { head, chunks, created, dropped };
}

/**
 * How full the newest chunk is left when it is cut: the topics' partitions are consumed side by side,
 * so entries a little older than the newest keep arriving after a cut, and the room left takes them
 * without splitting the chunk again (measured with bench/audit.mjs: three lanes left chunks about half
 * full when cut full).
 */
const SEALED_FILL = 0.75;

/** Puts `merged` (the new contents of chunk `n`) back as one chunk or several, updating the head's refs. */
function splitInto(
  head: AuditHead,
  n: string,
  merged: readonly AuditEntry[],
  limits: AuditLimits,
  chunks: Map<string, AuditEntry[]>,
  created: Set<string>,
  allocate: () => string,
): void {
  const index = head.chunks.findIndex((c) => c.n === n);
  const isNewest = index === head.chunks.length - 1;
  const size = merged.length <= limits.chunkEntries ? merged.length : isNewest ? Math.ceil(limits.chunkEntries * SEALED_FILL) : Math.ceil(limits.chunkEntries / 2);
  const pieces: AuditEntry[][] = [];
  for (let from = 0; from < merged.length; from += size) pieces.push(merged.slice(from, from + size));
  const refs = pieces.map((piece, i) => {
    const name = i === 0 ? n : allocate();
    if (i > 0) created.add(name);
    chunks.set(name, piece);
    // The chunk keeps its range's start (the oldest one widens to take older keys); a piece cut off starts at its first entry.
    const own = (head.chunks[index] as AuditChunkRef).first;
    const first = i > 0 ? (piece[0] as AuditEntry).k : index === 0 ? minKey(own, (piece[0] as AuditEntry).k) : own;
    return { n: name, first, count: piece.length };
  });
  head.chunks.splice(index, 1, ...refs);
}

function minKey(a: string, b: string): string {
  return a < b ? a : b;
}

export interface AuditFilter {
  types?: ReadonlySet<string> | undefined;
  /** Inclusive lower bound on `occurredAt` (ISO 8601). */
  since?: string | undefined;
  /** Exclusive upper bound on `occurredAt` (ISO 8601). */
  before?: string | undefined;
  /** Continue strictly below this key (a cursor). */
  belowKey?: string | undefined;
}

export function isFiltered(filter: AuditFilter): boolean {
  return filter.types !== undefined || filter.since !== undefined || filter.before !== undefined;
}

export function matchesFilter(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.types && !filter.types.has(entry.type)) return false;
  if (filter.since !== undefined && entry.occurredAt < filter.since) return false;
  if (filter.before !== undefined && entry.occurredAt >= filter.before) return false;
  return filter.belowKey === undefined || entry.k < filter.belowKey;
}

/**
 * The chunks that may hold matches, newest first: a chunk's range is its `first` up to the next
 * chunk's, so time bounds and a cursor skip chunks without reading them.
 */
export function chunksNewestFirst(head: AuditHead, filter: AuditFilter): AuditChunkRef[] {
  const candidates: AuditChunkRef[] = [];
  for (let i = head.chunks.length - 1; i >= 0; i--) {
    const ref = head.chunks[i] as AuditChunkRef;
    const next = head.chunks[i + 1];
    if (filter.before !== undefined && ref.first >= filter.before) continue;
    if (filter.belowKey !== undefined && ref.first >= filter.belowKey) continue;
    // Keys of this chunk are below `next.first`; every key starts with its time.
    if (filter.since !== undefined && next !== undefined && next.first < filter.since) continue;
    candidates.push(ref);
  }
  return candidates;
}

/** Entries kept for the key, newest first count (what an unfiltered list reports as its total). */
export function retainedCount(head: AuditHead): number {
  return head.chunks.reduce((sum, c) => sum + c.count, 0);
}

/** One chunk's entries that match, newest first. */
export function matchingNewestFirst(entries: readonly AuditEntry[], filter: AuditFilter): AuditEntry[] {
  const found: AuditEntry[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as AuditEntry;
    if (matchesFilter(entry, filter)) found.push(entry);
  }
  return found;
}
