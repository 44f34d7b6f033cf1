import { groupConversationId, userConversationId } from '@chat/contracts';
import type { EventEnvelope, GlobalPin } from '@chat/contracts';
import { GuardedProjectionWriter, ensureIndexes, isDuplicateKeyError, stripStoredFields } from '@chat/mongo';
import type { Stored } from '@chat/mongo';
import type { Collection, Db, Filter } from 'mongodb';
import type { ConversationType, PeerUserDoc, SharedConversationDoc, UserConversationDoc } from '../domain/conversationView.js';
import { ConversationProjector } from '../projections/conversationProjector.js';
import type { Change, ConversationProjectionStore, Versioned } from '../projections/conversationProjector.js';
import { globalPinsProjection } from '../projections/globalPins.js';
import { listHeadDocId } from '../projections/listHead.js';
import type { ListHeadDoc } from '../projections/listHead.js';
import type { GlobalPinsDoc } from '../projections/globalPins.js';
import { sharedConversationDocId } from '../projections/sharedConversations.js';
import { userConversationDocId } from '../projections/userConversations.js';
import { userDocId, usersProjection } from '../projections/users.js';

export interface ConversationPage<T> {
  total: number;
  items: T[];
}

/** List filters, already resolved to document fields (peer sets come from the users and groups read here). */
export interface ConversationFilter {
  conversationType?: ConversationType;
  unreadOnly?: boolean;
  tags?: string[];
  /** Restrict to these peers (uids or guids), from userTags/groupTags/searchKey. */
  peers?: string[];
}

type AnyStored = Record<string, unknown> & { _id: string; _positions: Record<string, number>; _rev: number };

const MAX_ATTEMPTS = 50;

/**
 * The two long arrays of this read model — a conversation's message ledger (up to 1,000 entries) and a
 * user's list head (up to 500) — are stored as one JSON text field each. FerretDB v1 encodes and decodes
 * every nested document of a field on every read and write, which made these documents the projection's
 * main cost; a string costs it nearly nothing. No query filters on either array.
 */
const ARRAYS_STORED_AS_TEXT = ['ledger', 'entries'] as const;

/** The stored form of a read-model document (exported for bulk seeding, which must write what the writer writes). */
export function encodeArrays(doc: Record<string, unknown>): Record<string, unknown> {
  const stored = { ...doc };
  for (const field of ARRAYS_STORED_AS_TEXT) {
    if (Array.isArray(stored[field])) {
      stored[`${field}Text`] = JSON.stringify(stored[field]);
      delete stored[field];
    }
  }
  return stored;
}

function decodeArrays(stored: AnyStored): AnyStored {
  const doc: AnyStored = { ...stored };
  for (const field of ARRAYS_STORED_AS_TEXT) {
    const text = doc[`${field}Text`];
    if (typeof text === 'string') {
      doc[field] = JSON.parse(text) as unknown;
      delete doc[`${field}Text`];
    }
  }
  return doc;
}

function toVersioned<Doc extends object>(stored: AnyStored | null): Versioned<Doc> | null {
  if (!stored) return null;
  const decoded = decodeArrays(stored);
  return { doc: stripStoredFields(decoded as unknown as Stored<Doc>), positions: decoded._positions, rev: decoded._rev };
}

/** Read-modify-write with compare-and-set on `_rev`: what makes concurrent appliers of one document safe. */
async function compareAndSet<Doc extends object>(
  collection: Collection<AnyStored>,
  id: string,
  attempt: (current: AnyStored | null) => Promise<Change<Doc>>,
): Promise<void> {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const current = await collection.findOne({ _id: id });
    const change = await attempt(current);
    if (change === undefined) return;
    if (change === null) {
      if (!current) return;
      if ((await collection.deleteOne({ _id: id, _rev: current._rev })).deletedCount === 1) return;
      continue;
    }
    const next = { ...encodeArrays(change.doc as Record<string, unknown>), _id: id, _positions: change.positions, _rev: (current?._rev ?? 0) + 1 } as AnyStored;
    if (!current) {
      try {
        await collection.insertOne(next);
        return;
      } catch (error) {
        if (isDuplicateKeyError(error)) continue;
        throw error;
      }
    }
    if ((await collection.replaceOne({ _id: id, _rev: current._rev }, next)).matchedCount === 1) return;
  }
  throw new Error(`conversation read model: document ${id} kept changing`);
}

class MongoProjectionStore implements ConversationProjectionStore {
  constructor(
    private readonly shared: Collection<AnyStored>,
    private readonly users: Collection<AnyStored>,
    private readonly heads: Collection<AnyStored>,
  ) {}

  updateShared(id: string, change: (current: Versioned<SharedConversationDoc> | null) => Change<SharedConversationDoc>): Promise<void> {
    return compareAndSet(this.shared, id, (current) => Promise.resolve(change(toVersioned(current))));
  }

  updateUserConversation(
    id: string,
    sharedId: string,
    change: (current: Versioned<UserConversationDoc> | null, shared: Versioned<SharedConversationDoc> | null) => Change<UserConversationDoc>,
  ): Promise<void> {
    return compareAndSet(this.users, id, async (current) => {
      const shared = await this.shared.findOne({ _id: sharedId });
      return change(toVersioned(current), toVersioned(shared));
    });
  }

  updateListHead(
    headId: string,
    userConversationId: string,
    change: (head: Versioned<ListHeadDoc> | null, current: UserConversationDoc | null) => ListHeadDoc | undefined,
  ): Promise<void> {
    return compareAndSet(this.heads, headId, async (head) => {
      const current = await this.users.findOne({ _id: userConversationId });
      const next = change(toVersioned(head), toVersioned<UserConversationDoc>(current)?.doc ?? null);
      return next === undefined ? undefined : { doc: next, positions: {} };
    });
  }

  async sharedRevision(id: string): Promise<number> {
    const doc = await this.shared.findOne({ _id: id }, { projection: { _rev: 1 } });
    return doc?._rev ?? 0;
  }

  async userConversationIds(appId: string, conversationId: string): Promise<string[]> {
    const docs = await this.users.find({ appId, conversationId }, { projection: { _id: 1 } }).toArray();
    return docs.map((doc) => doc._id);
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The conversations service's read models in MongoDB: the writers every event goes through (Kafka
 * consumer and read-your-writes alike) and the queries the API needs.
 */
export class ConversationReadModels {
  private readonly users: GuardedProjectionWriter<PeerUserDoc>;
  private readonly globalPins: GuardedProjectionWriter<GlobalPinsDoc>;
  private readonly sharedDocs: Collection<AnyStored>;
  private readonly userDocs: Collection<AnyStored>;
  private readonly headDocs: Collection<AnyStored>;
  private readonly projector: ConversationProjector;

  constructor(db: Db) {
    this.users = new GuardedProjectionWriter(db, 'users', usersProjection);
    this.globalPins = new GuardedProjectionWriter(db, 'global_pins', globalPinsProjection);
    this.sharedDocs = db.collection<AnyStored>('shared_conversations');
    this.userDocs = db.collection<AnyStored>('user_conversations');
    this.headDocs = db.collection<AnyStored>('conversation_list_heads');
    this.projector = new ConversationProjector(new MongoProjectionStore(this.sharedDocs, this.userDocs, this.headDocs));
  }

  async ensureIndexes(db: Db): Promise<void> {
    await ensureIndexes(db, 'user_conversations', [
      { keys: { appId: 1, owner: 1, listed: 1, updatedAt: -1, lastMessageSeq: -1 }, options: { name: 'owner_recent' } },
      { keys: { appId: 1, owner: 1, pinOrder: -1 }, options: { name: 'owner_pins' } },
      { keys: { appId: 1, owner: 1, peer: 1 }, options: { name: 'owner_peer' } },
      { keys: { appId: 1, conversationId: 1 }, options: { name: 'conversation_members' } },
    ]);
    await ensureIndexes(db, 'shared_conversations', [
      { keys: { appId: 1, listed: 1, updatedAt: -1, lastMessageSeq: -1 }, options: { name: 'app_recent' } },
    ]);
  }

  /** Applies one event to every read model that cares; safe to call any number of times, in any interleaving of streams. */
  async apply(event: EventEnvelope): Promise<void> {
    await this.users.apply(event);
    await this.globalPins.apply(event);
    await this.projector.apply(event);
  }

  async findUser(appId: string, uid: string): Promise<PeerUserDoc | null> {
    const doc = await this.users.documents().findOne({ _id: userDocId(appId, uid) } as Filter<Stored<PeerUserDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  async findUsers(appId: string, uids: readonly string[]): Promise<Map<string, PeerUserDoc>> {
    if (uids.length === 0) return new Map();
    // Reads by id, concurrently: FerretDB v1 answers `$in` by reading the whole collection.
    const docs = await Promise.all(
      [...new Set(uids)].map((uid) => this.users.documents().findOne({ _id: userDocId(appId, uid) } as Filter<Stored<PeerUserDoc>>)),
    );
    return new Map(docs.flatMap((doc) => (doc ? [[doc.uid, stripStoredFields(doc)] as const] : [])));
  }

  /** Uids of users with any of the tags and/or whose name or uid contains `search`. */
  async findUserIds(appId: string, criteria: { tags?: string[]; search?: string }): Promise<string[]> {
    const filter: Record<string, unknown> = { appId };
    if (criteria.tags) filter['tags'] = { $in: criteria.tags };
    if (criteria.search !== undefined) {
      const pattern = { $regex: escapeRegex(criteria.search), $options: 'i' };
      filter['$or'] = [{ name: pattern }, { uid: pattern }];
    }
    const docs = await this.users.documents().find(filter as Filter<Stored<PeerUserDoc>>, { projection: { uid: 1 } }).toArray();
    return docs.map((doc) => doc.uid);
  }

  /** Guids of groups with any of the tags and/or whose name or guid contains `search`. */
  async findGroupIds(appId: string, criteria: { tags?: string[]; search?: string }): Promise<string[]> {
    const filter: Record<string, unknown> = { appId, conversationType: 'group', group: { $exists: true } };
    if (criteria.tags) filter['group.tags'] = { $in: criteria.tags };
    if (criteria.search !== undefined) {
      const pattern = { $regex: escapeRegex(criteria.search), $options: 'i' };
      filter['$or'] = [{ 'group.name': pattern }, { 'group.guid': pattern }];
    }
    const docs = await this.sharedDocs.find(filter, { projection: { group: 1 } }).toArray();
    return docs.map((doc) => (doc['group'] as { guid: string }).guid);
  }

  async findConversation(appId: string, owner: string, conversationId: string): Promise<UserConversationDoc | null> {
    const doc = await this.userDocs.findOne({ _id: userConversationDocId(appId, owner, conversationId) });
    return toVersioned<UserConversationDoc>(doc)?.doc ?? null;
  }

  async findShared(appId: string, conversationId: string): Promise<SharedConversationDoc | null> {
    const doc = await this.sharedDocs.findOne({ _id: sharedConversationDocId(appId, conversationId) });
    return toVersioned<SharedConversationDoc>(doc)?.doc ?? null;
  }

  async findSharedMany(appId: string, conversationIds: readonly string[]): Promise<Map<string, SharedConversationDoc>> {
    if (conversationIds.length === 0) return new Map();
    const docs = await Promise.all(
      [...new Set(conversationIds)].map((id) => this.sharedDocs.findOne({ _id: sharedConversationDocId(appId, id) })),
    );
    return new Map(docs.flatMap((doc) => (doc ? [[doc['conversationId'] as string, toVersioned<SharedConversationDoc>(doc)!.doc] as const] : [])));
  }

  async findGlobalPins(appId: string): Promise<GlobalPin[]> {
    const doc = await this.globalPins.documents().findOne({ _id: appId } as Filter<Stored<GlobalPinsDoc>>);
    return doc?.pins ?? [];
  }

  /** The user's documents of these conversations, by id, in the order given (null where there is none). */
  private async findUserConversations(appId: string, owner: string, conversationIds: readonly string[]): Promise<Array<UserConversationDoc | null>> {
    const docs = await Promise.all(conversationIds.map((id) => this.userDocs.findOne({ _id: userConversationDocId(appId, owner, id) })));
    return docs.map((doc) => toVersioned<UserConversationDoc>(doc)?.doc ?? null);
  }

  /**
   * A user's conversations in CometChat's order: app-wide pins (in their configured order), then
   * the user's own pins (newest first), then the rest by last activity. Unfiltered pages inside the
   * user's list head are read by id only; filtered lists and pages beyond the head use the query.
   */
  async listForUser(
    appId: string,
    owner: string,
    globalPins: readonly GlobalPin[],
    filter: ConversationFilter,
    page: number,
    perPage: number,
  ): Promise<ConversationPage<UserConversationDoc>> {
    if (Object.keys(filter).length === 0) {
      const fromHead = await this.listFromHead(appId, owner, globalPins, page, perPage);
      if (fromHead) return fromHead;
    }
    return this.listByQuery(appId, owner, globalPins, filter, page, perPage);
  }

  /** The page from the user's list head, or null when the page lies beyond it (or the head is behind). */
  private async listFromHead(
    appId: string,
    owner: string,
    globalPins: readonly GlobalPin[],
    page: number,
    perPage: number,
  ): Promise<ConversationPage<UserConversationDoc> | null> {
    const stored = await this.headDocs.findOne({ _id: listHeadDocId(appId, owner) });
    const head = toVersioned<ListHeadDoc>(stored)?.doc ?? { appId, owner, total: 0, entries: [], pins: [] };
    const globalIds = globalPins.map((pin) =>
      pin.conversationType === 'user' ? userConversationId(owner, pin.conversationWith) : groupConversationId(pin.conversationWith),
    );
    const ownPinIds = head.pins.map((pin) => pin.conversationId).filter((id) => !globalIds.includes(id));
    const prefix = (await this.findUserConversations(appId, owner, [...globalIds, ...ownPinIds])).filter(
      (doc): doc is UserConversationDoc => doc?.listed === true,
    );
    const inPrefix = new Set(prefix.map((doc) => doc.conversationId));
    const rest = head.entries.filter((entry) => !inPrefix.has(entry.conversationId));

    const offset = (page - 1) * perPage;
    const fromPrefix = prefix.slice(offset, offset + perPage);
    const remaining = perPage - fromPrefix.length;
    const restStart = Math.max(0, offset - prefix.length);
    const complete = head.entries.length >= head.total;
    if (remaining > 0 && !complete && rest.length < restStart + remaining) return null;
    const wanted = remaining > 0 ? rest.slice(restStart, restStart + remaining).map((entry) => entry.conversationId) : [];
    const docs = await this.findUserConversations(appId, owner, wanted);
    if (!docs.every((doc) => doc?.listed === true)) return null;
    return { total: head.total, items: [...fromPrefix, ...(docs as UserConversationDoc[])] };
  }

  private async listByQuery(
    appId: string,
    owner: string,
    globalPins: readonly GlobalPin[],
    filter: ConversationFilter,
    page: number,
    perPage: number,
  ): Promise<ConversationPage<UserConversationDoc>> {
    const collection = this.userDocs;
    const base: Record<string, unknown> = { appId, owner, listed: true };
    if (filter.conversationType) base['conversationType'] = filter.conversationType;
    if (filter.unreadOnly) base['unreadCount'] = { $gt: 0 };
    if (filter.tags) base['tags'] = { $in: filter.tags };
    if (filter.peers) base['peer'] = { $in: filter.peers };

    const globalKeys = globalPins.map((p) => `${p.conversationType}:${p.conversationWith}`);
    const keyOf = (doc: AnyStored) => `${String(doc['conversationType'])}:${String(doc['peer'])}`;
    const globalPeers = globalPins.map((p) => p.conversationWith);

    const [globallyPinned, ownPinned, total] = await Promise.all([
      globalPeers.length > 0
        ? collection.find({ ...base, peer: filter.peers ? { $in: filter.peers.filter((p) => globalPeers.includes(p)) } : { $in: globalPeers } }).toArray()
        : Promise.resolve([]),
      collection.find({ ...base, pinnedAt: { $exists: true } }).sort({ pinOrder: -1 }).toArray(),
      collection.countDocuments(base),
    ]);
    const pinnedForAll = globallyPinned.filter((doc) => globalKeys.includes(keyOf(doc)));
    pinnedForAll.sort((a, b) => globalKeys.indexOf(keyOf(a)) - globalKeys.indexOf(keyOf(b)));
    const prefix = [...pinnedForAll, ...ownPinned.filter((doc) => !globalKeys.includes(keyOf(doc)))];

    const offset = (page - 1) * perPage;
    const fromPrefix = prefix.slice(offset, offset + perPage);
    const remaining = perPage - fromPrefix.length;
    let rest: AnyStored[] = [];
    if (remaining > 0) {
      const query = prefix.length > 0 ? { ...base, _id: { $nin: prefix.map((doc) => doc._id) } } : base;
      rest = await collection
        .find(query)
        .sort({ updatedAt: -1, lastMessageSeq: -1 })
        .skip(Math.max(0, offset - prefix.length))
        .limit(remaining)
        .toArray();
    }
    return { total, items: [...fromPrefix, ...rest].map((doc) => toVersioned<UserConversationDoc>(doc)!.doc) };
  }

  /** Every conversation of the app once, by last activity (the list without an acting user). */
  async listForApp(appId: string, filter: ConversationFilter, page: number, perPage: number): Promise<ConversationPage<SharedConversationDoc>> {
    const base: Record<string, unknown> = { appId, listed: true };
    if (filter.conversationType) base['conversationType'] = filter.conversationType;
    if (filter.peers) {
      const peers = filter.peers;
      base['$or'] = [{ participants: { $in: peers } }, { 'group.guid': { $in: peers } }];
    }
    const [total, docs] = await Promise.all([
      this.sharedDocs.countDocuments(base),
      this.sharedDocs
        .find(base)
        .sort({ updatedAt: -1, lastMessageSeq: -1 })
        .skip((page - 1) * perPage)
        .limit(perPage)
        .toArray(),
    ]);
    return { total, items: docs.map((doc) => toVersioned<SharedConversationDoc>(doc)!.doc) };
  }
}
