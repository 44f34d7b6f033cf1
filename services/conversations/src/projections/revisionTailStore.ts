import { RecentlyUsed } from '@chat/eventsourcing';
import type { DocumentStore, GuardedWrite, StoredRecord } from '@chat/mongo';
import { isDeepStrictEqual } from 'node:util';

/**
 * One change of a revision, by path from the document's top: set a value, append to an array, or
 * remove a field. A set at the empty path replaces the whole document.
 */
export type RevisionOp = ['s', string[], unknown] | ['p', string[], unknown[]] | ['u', string[]];

/** A revision as stored in the tail collection: the changes from the revision before it, as JSON text. */
interface TailDoc {
  _id: string;
  d: string;
}

/** What this process last read or wrote of a document, and what it knows of the stored head. */
interface Known {
  rev: number;
  record: StoredRecord;
  /** The stored head's revision (as last read or written: another writer may have folded since). */
  head: number;
  /** A revision after the head changes a field a query filters on: the next write folds. */
  queriedBehind: boolean;
  /** The head was stored before its revisions moved (`legacyTails`): the next write folds, which marks it. */
  legacy: boolean;
}

export interface RevisionTailOptions {
  /** Revisions after the head before a write folds them into it (and how many a reader asks for at once). */
  foldEvery?: number;
  /** Top-level fields a query filters on: a change to one is folded into the head at once. */
  foldOn?: readonly string[];
  /** Documents whose last revision this process remembers, to store a write as its changes. */
  cacheSize?: number;
  /**
   * Where the revisions of heads stored before they moved to `tails` are (ADR 0089). Heads this store
   * writes then carry `HEAD_MARK`; an unmarked head's revisions are looked up in both, and its next
   * write folds it (marking it), so each document pays the second read until it is next written.
   */
  legacyTails?: DocumentStore;
}

/** The field of a stored head whose revisions are all in `tails` (only with `legacyTails`). */
export const HEAD_MARK = '_tailed';

/** Revisions a head takes before a write folds them in (ADR 0056). */
export const FOLD_EVERY = 16;

export function tailId(id: string, rev: number): string {
  return `${id}~${rev}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const NO_FIELDS: ReadonlySet<string> = new Set();

/** The changes field by field between two objects, the `skipped` fields left out. */
function fieldOps(before: Record<string, unknown>, after: Record<string, unknown>, path: string[], ops: RevisionOp[], skipped = NO_FIELDS): RevisionOp[] {
  // `for…in`, not `Object.keys`: no key array per object compared (plain objects: the same keys, in the same order).
  // An unchanged field (the same value or object) has no changes, and no path is built for it (ADR 0141).
  for (const key in before) if (!skipped.has(key) && before[key] !== undefined && after[key] === undefined) ops.push(['u', [...path, key]]);
  for (const key in after) {
    const value = after[key];
    if (skipped.has(key) || value === undefined || value === before[key]) continue;
    if (before[key] === undefined) ops.push(['s', [...path, key], value]);
    else revisionOps(before[key], value, [...path, key], ops);
  }
  return ops;
}

/** The changes that turn `before` into `after` (neither holds `undefined` values that matter). */
export function revisionOps(before: unknown, after: unknown, path: string[] = [], ops: RevisionOp[] = []): RevisionOp[] {
  if (before === after) return ops;
  if (isPlainObject(before) && isPlainObject(after)) return fieldOps(before, after, path, ops);
  if (Array.isArray(before) && Array.isArray(after)) {
    if (after.length > before.length && before.every((item, i) => item === after[i] || isDeepStrictEqual(item, after[i]))) {
      ops.push(['p', path, after.slice(before.length)]);
      return ops;
    }
    if (after.length === before.length) {
      // An entry changed in place (an inbox's newest conversation): its changes, unless most entries changed.
      const items: RevisionOp[] = [];
      for (let i = 0; i < after.length; i++) if (before[i] !== after[i]) revisionOps(before[i], after[i], [...path, String(i)], items);
      if (items.length <= Math.max(1, after.length / 2)) ops.push(...items);
      else ops.push(['s', path, after]);
      return ops;
    }
  }
  if (!isDeepStrictEqual(before, after)) ops.push(['s', path, after]);
  return ops;
}

/** `target` with one change applied; copies along the path, never changes what it is given. */
function applyOp(target: unknown, op: RevisionOp, depth = 0): unknown {
  const path = op[1];
  if (depth === path.length) {
    if (op[0] === 's') return op[2];
    if (op[0] === 'p') return [...(Array.isArray(target) ? (target as unknown[]) : []), ...op[2]];
    return undefined;
  }
  const key = path[depth]!;
  if (Array.isArray(target)) {
    // Only an entry changed in place is addressed by index (same length before and after).
    const copy = [...(target as unknown[])];
    copy[Number(key)] = applyOp(copy[Number(key)], op, depth + 1);
    return copy;
  }
  const copy: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  const next = applyOp(copy[key], op, depth + 1);
  if (next === undefined) delete copy[key];
  else copy[key] = next;
  return copy;
}

/** The document after its revisions' changes; `fields` limits them to those top-level fields (a projected read). */
export function withRevisions(record: StoredRecord, revisions: readonly RevisionOp[][], fields?: ReadonlySet<string>): StoredRecord {
  let document: unknown = record;
  for (const ops of revisions) {
    for (const op of ops) {
      if (fields && op[1].length === 0) {
        const whole = op[2] as Record<string, unknown>;
        document = { ...(document as object), ...Object.fromEntries(Object.entries(whole).filter(([field]) => fields.has(field))) };
      } else if (!fields || fields.has(op[1][0]!)) {
        document = applyOp(document, op);
      }
    }
  }
  return { ...(document as StoredRecord), _id: record._id, _rev: record._rev + revisions.length };
}

/** A revision's fields: everything but the two ids a stored document carries. */
const NOT_BODY: ReadonlySet<string> = new Set(['_id', '_rev']);

/** The changes between two stored forms of a document, its two ids left out (neither is copied). */
function bodyOps(before: StoredRecord, after: StoredRecord): RevisionOp[] {
  return fieldOps(before, after, [], [], NOT_BODY);
}

/**
 * A collection whose documents are a head plus the revisions after it (ADR 0056). On this store a
 * replace costs 3–5 × an insert of the same document (ADR 0048), and most writes of a timeline or an
 * inbox change a few fields of a document of kilobytes; so a write inserts the revision's changes as a
 * small document keyed `<id>~<revision>` into the tail collection, and only every `foldEvery`
 * revisions (or when a field a query filters on changes) is the whole document replaced in the head
 * collection. A reader reads the heads, then the next revisions of each by `_id $in` (keys it can
 * compute), and applies them.
 *
 * The guard is still the runtime's compare-and-set on `_rev`, now held by the tail's unique key: a
 * write of revision r + 1 over r inserts `<id>~<r+1>`, and of two writers the one that inserts second
 * gets a duplicate and is told it lost, as a failed `{_id, _rev}` replace would tell it. Revisions are
 * never deleted, so a key once used stays used: a writer whose knowledge is stale (a cache behind the
 * store) always finds its revision taken. The head's own replace is guarded by the head revision it
 * was read at; losing it loses nothing (the revisions are stored), it only leaves the fold to the next
 * write. Documents are never deleted by these read models, so deleting is refused.
 *
 * A head written before this store (no revisions after it) reads as it is: no migration.
 */
export class RevisionTailStore implements DocumentStore {
  private readonly known: RecentlyUsed<string, Known>;
  private readonly foldEvery: number;
  private readonly foldOn: ReadonlySet<string>;
  private readonly legacyTails: DocumentStore | undefined;
  /** Documents whose head a fold behind a write is replacing now. */
  private readonly folding = new Set<string>();
  /** The folds behind writes in flight. */
  private readonly behind = new Set<Promise<void>>();

  constructor(
    private readonly heads: DocumentStore,
    private readonly tails: DocumentStore,
    options: RevisionTailOptions = {},
  ) {
    this.foldEvery = options.foldEvery ?? FOLD_EVERY;
    this.foldOn = new Set(options.foldOn ?? []);
    this.known = new RecentlyUsed(options.cacheSize ?? 20_000);
    this.legacyTails = options.legacyTails;
  }

  /** A head as this store writes it: marked when revisions of unmarked heads live elsewhere. */
  private marked(document: StoredRecord): StoredRecord {
    return this.legacyTails ? { ...document, [HEAD_MARK]: 1 } : document;
  }

  async findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    return this.complete(await this.heads.findMany(ids));
  }

  /**
   * Heads (read by id or found by a query, decoded) with their revisions applied. `fields` names the
   * fields a projected query read: changes to others are skipped, and nothing is remembered.
   */
  async complete(heads: Map<string, StoredRecord>, fields?: ReadonlySet<string>): Promise<Map<string, StoredRecord>> {
    const unmarked = new Set(this.legacyTails ? [...heads.values()].filter((head) => head[HEAD_MARK] === undefined).map((head) => head._id) : []);
    const revisions = await this.revisionsAfter([...heads.values()].map((head) => [head._id, head._rev]), unmarked);
    const found = new Map<string, StoredRecord>();
    for (const [id, stored] of heads) {
      const head = { ...stored };
      delete head[HEAD_MARK];
      const after = revisions.get(id) ?? [];
      const record = withRevisions(head, after, fields);
      found.set(id, record);
      if (!fields) this.remember(id, { rev: record._rev, record, head: head._rev, queriedBehind: after.some((ops) => this.touchesQueried(ops)), legacy: unmarked.has(id) });
    }
    return found;
  }

  async insert(documents: readonly StoredRecord[]): Promise<string[]> {
    const duplicates = await this.heads.insert(documents.map((document) => this.marked(document)));
    const lost = new Set(duplicates);
    for (const document of documents) {
      if (!lost.has(document._id)) this.remember(document._id, { rev: document._rev, record: document, head: document._rev, queriedBehind: false, legacy: false });
    }
    return duplicates;
  }

  async writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    const replaces = writes.map((write) => {
      if (write.kind === 'delete') throw new Error(`RevisionTailStore: ${write.id} cannot be deleted (its revisions would stay behind)`);
      return write;
    });
    // A write this process cannot express as changes (it knows no revision of the document): the
    // document is read first, and if the store is past the expected revision the write lost already.
    const unknown = replaces.filter((write) => this.known.peek(write.document._id)?.rev !== write.expectedRev);
    const lost = new Set<string>();
    if (unknown.length > 0) {
      const read = await this.findMany(unknown.map((write) => write.document._id));
      for (const write of unknown) if (read.get(write.document._id)?._rev !== write.expectedRev) lost.add(write.document._id);
    }
    const claims: TailDoc[] = [];
    const written: { write: GuardedWrite & { kind: 'replace' }; claim: string; known: Known; fold: boolean; queried: boolean }[] = [];
    for (const write of replaces) {
      const id = write.document._id;
      if (lost.has(id)) continue;
      const known = this.known.peek(id)!;
      const rev = write.expectedRev + 1;
      const ops = bodyOps(known.record, write.document);
      const claim = tailId(id, rev);
      claims.push({ _id: claim, d: JSON.stringify(ops) });
      const queried = known.queriedBehind || this.touchesQueried(ops);
      written.push({ write, claim, known, queried, fold: queried || known.legacy || rev - known.head >= this.foldEvery });
    }
    const taken = new Set(await this.tails.insert(claims as unknown as StoredRecord[]));
    const folds: { document: StoredRecord; head: number; queried: boolean }[] = [];
    for (const { write, claim, known, fold, queried } of written) {
      const id = write.document._id;
      if (taken.has(claim)) {
        lost.add(id);
        this.known.delete(id);
        continue;
      }
      this.remember(id, { rev: write.document._rev, record: write.document, head: known.head, queriedBehind: queried, legacy: known.legacy });
      if (fold) folds.push({ document: write.document, head: known.head, queried });
    }
    // The revisions are stored, so the document is written: what a reader or the next write needs is
    // there. A fold of a queried field goes before the answer (a query filters on the head). The
    // periodic ones go behind it (ADR 0130): a fold replaces a whole head, the longest command of a
    // projection run, and the run and every record fetched after it would wait for it; one fold per
    // document at a time, the next write folds whatever one that failed or was skipped left behind.
    const now = folds.filter(({ queried }) => queried);
    const behind = folds.filter(({ queried, document }) => !queried && !this.folding.has(document._id));
    if (behind.length > 0) this.foldBehind(behind);
    await this.fold(now);
    return [...lost];
  }

  /** Resolves once every fold started behind a write so far is done (or failed): tests, and a reader that needs the heads. */
  async settled(): Promise<void> {
    await Promise.all([...this.behind]);
  }

  private foldBehind(folds: { document: StoredRecord; head: number }[]): void {
    const ids = folds.map(({ document }) => document._id);
    for (const id of ids) this.folding.add(id);
    const done: Promise<void> = this.fold(folds)
      // A failed fold loses nothing (the revisions are stored): the head stays where it was, and the next write folds.
      .catch(() => undefined)
      .finally(() => {
        for (const id of ids) this.folding.delete(id);
        this.behind.delete(done);
      });
    this.behind.add(done);
  }

  /**
   * Replaces each head with the document at its new revision, guarded by the head revision it was
   * read at. A replace that loses (another writer folded first) loses nothing, but a head behind a
   * change of a queried field would hide it from queries, so the head is read again and the fold
   * retried while the head is still behind this revision.
   */
  private async fold(toFold: readonly { document: StoredRecord; head: number }[]): Promise<void> {
    let folds = toFold;
    for (let attempt = 0; folds.length > 0 && attempt < 3; attempt++) {
      const notFolded = new Set(await this.heads.writeGuarded(folds.map(({ document, head }) => ({ kind: 'replace', document: this.marked(document), expectedRev: head }))));
      for (const { document } of folds) if (!notFolded.has(document._id)) this.headAt(document._id, document._rev);
      if (notFolded.size === 0) break;
      const current = await this.heads.findMany([...notFolded]);
      folds = folds.flatMap(({ document }) => {
        const head = current.get(document._id)?._rev;
        if (!notFolded.has(document._id) || head === undefined) return [];
        this.headAt(document._id, head);
        return head < document._rev ? [{ document, head }] : [];
      });
    }
  }

  /**
   * The stored revisions after each head, in order, read `foldEvery` keys at a time per document until
   * one is missing; those of `unmarked` heads in the legacy tails too (a key is in one or the other).
   */
  private async revisionsAfter(heads: readonly [string, number][], unmarked: ReadonlySet<string>): Promise<Map<string, RevisionOp[][]>> {
    const revisions = new Map<string, RevisionOp[][]>();
    let pending = heads.map(([id, rev]) => ({ id, next: rev + 1 }));
    const keysOf = (list: typeof pending) => list.flatMap(({ id, next }) => Array.from({ length: this.foldEvery }, (_, i) => tailId(id, next + i)));
    while (pending.length > 0) {
      const legacyKeys = this.legacyTails ? keysOf(pending.filter(({ id }) => unmarked.has(id))) : [];
      const [found, legacy] = await Promise.all([this.tails.findMany(keysOf(pending)), legacyKeys.length > 0 ? this.legacyTails!.findMany(legacyKeys) : new Map<string, StoredRecord>()]);
      for (const [key, tail] of legacy) if (!found.has(key)) found.set(key, tail);
      const stillPending: typeof pending = [];
      for (const { id, next } of pending) {
        const list = revisions.get(id) ?? [];
        let rev = next;
        for (let tail = found.get(tailId(id, rev)); tail; tail = found.get(tailId(id, rev))) {
          list.push(JSON.parse((tail as unknown as TailDoc).d) as RevisionOp[]);
          rev += 1;
        }
        if (list.length > 0) revisions.set(id, list);
        if (rev === next + this.foldEvery) stillPending.push({ id, next: rev });
      }
      pending = stillPending;
    }
    return revisions;
  }

  private touchesQueried(ops: readonly RevisionOp[]): boolean {
    return ops.some((op) => op[1].length === 0 || this.foldOn.has(op[1][0]!));
  }

  /** The stored head is at `rev` (folded by this process or read): what is behind it is in it. */
  private headAt(id: string, rev: number): void {
    const known = this.known.peek(id);
    if (!known || known.head >= rev) return;
    known.head = rev;
    known.legacy = false;
    if (known.rev <= rev) known.queriedBehind = false;
  }

  private remember(id: string, known: Known): void {
    const current = this.known.peek(id);
    // Two calls may finish out of order: the newer revision wins.
    if (current && current.rev > known.rev) return;
    this.known.set(id, known);
  }
}
