import type { EventEnvelope, GlobalPin } from '@chat/contracts';
import { MongoDocumentStore, allOf, byScalarFields, coalescedRuns, ensureIndexes, escapeRegex, findByIds, keysetKeyOf, mongoProjection, stripStoredFields } from '@chat/mongo';
import type { DocumentStore, EventApplier, KeysetOrder, PagePosition, Stored, StoredRecord } from '@chat/mongo';
import type { Collection, Db, Filter } from 'mongodb';
import type { ConversationMemberDoc } from '../domain/conversationMember.js';
import type { TimelineDoc } from '../domain/conversationTimeline.js';
import type { AppConversation, PeerUserDoc } from '../domain/conversationView.js';
import { ConversationReadModel } from '../projections/conversationReadModel.js';
import type { ConversationFilter, ConversationScans, ConversationStores } from '../projections/conversationReadModel.js';
import { globalPinsProjection } from '../projections/pins/globalPins.js';
import type { GlobalPinsDoc } from '../projections/pins/globalPins.js';
import { CompactInboxStore } from '../projections/compactInboxStore.js';
import { GatheredInserts } from '../projections/gatheredInserts.js';
import { MovedStore } from '../projections/movedStore.js';
import { ListCopyOnReadStore, withListedLastMessage } from '../projections/listCopyStore.js';
import { RevisionTailStore } from '../projections/revisionTailStore.js';
import { TextFieldsStore } from '../projections/timelineStores.js';
import { userDocId, usersProjection } from '../projections/users.js';

export interface AppConversationPage {
  total: number;
  items: AppConversation[];
  more: boolean;
  last: (string | number)[] | undefined;
}

/** The app-wide list: last activity first; the conversation id makes the key unique. */
const APP_CONVERSATION_ORDER: KeysetOrder = [
  ['updatedAt', -1],
  ['lastMessageSeq', -1],
  ['conversationId', -1],
];

/**
 * The collections of the conversation read model and the fields each stores as JSON text: FerretDB v1
 * encodes and decodes every nested document of a field on every read and write (ADR 0006), and no
 * query filters on these. `participants` and `group` stay documents: the scans and the app-wide list
 * filter on them.
 */
export const CONVERSATION_COLLECTIONS = {
  timelines: { name: 'conversation_timelines', text: ['open', 'sealed', 'totals', 'last', 'deletedSoft', 'deletedPermanently'] },
  history: { name: 'conversation_history', text: ['before', 'entries'] },
  members: { name: 'conversation_members', text: ['membership'] },
  copies: { name: 'conversation_message_copies', text: [] },
  inboxes: { name: 'conversation_inboxes', text: ['recent', 'hidden', 'groups', 'pins'] },
} as const;

/**
 * What a projection run inserts per message, in one collection so that one command carries all of it
 * (`GatheredInserts`, ADR 0089): the revisions after each stored timeline (`RevisionTailStore`, ADR
 * 0056) under their own keys, the inboxes' revisions under `~i` and the message copies under `~c` (no
 * app id starts with `~`). It keeps the timeline revisions' name, so that they need no move. Never
 * scanned: read by `_id $in` of keys computed from the heads and message ids.
 */
export const APPENDS = { name: 'conversation_timeline_revisions', inboxRevisions: '~i', copies: '~c' } as const;

/** Where inbox revisions and message copies were stored before ADR 0089: still read, never written. */
export const MOVED_FROM = { inboxRevisions: 'conversation_inbox_revisions', copies: CONVERSATION_COLLECTIONS.copies.name } as const;

/**
 * Inbox revisions between folds (timelines: `FOLD_EVERY`, 16). A one-on-one message revises two inboxes,
 * so their folds were twice the timeline's replaces; an inbox revision is ~100 B and one list reads one
 * inbox, so reading up to 31 of them costs little beside the replace saved (ADR 0089).
 */
const INBOX_FOLD_EVERY = 32;

/** The timeline and inbox stores over their heads and the shared appends collection. */
function revisionStores(db: Db, appends: GatheredInserts): { timelines: RevisionTailStore; inboxes: RevisionTailStore; timelineHeads: TextFieldsStore } {
  const timelineHeads = storeOf(db, CONVERSATION_COLLECTIONS.timelines);
  return {
    timelineHeads,
    timelines: new RevisionTailStore(timelineHeads, appends.store(''), { foldOn: TIMELINE_QUERIED_FIELDS }),
    inboxes: new RevisionTailStore(storeOf(db, CONVERSATION_COLLECTIONS.inboxes), appends.store(APPENDS.inboxRevisions), {
      legacyTails: new MongoDocumentStore(db, MOVED_FROM.inboxRevisions),
      foldEvery: INBOX_FOLD_EVERY,
    }),
  };
}

/** The message copies: inserted with a run's revisions, the ones stored before read where they are. */
function copiesStore(db: Db, appends: GatheredInserts): DocumentStore {
  return new MovedStore(appends.store(APPENDS.copies), new MongoDocumentStore(db, MOVED_FROM.copies));
}

/**
 * The timeline fields a query filters on (the scans, the app-wide list, the group search): a change to
 * one is folded into the stored head at once, so those queries find what they would have found.
 */
const TIMELINE_QUERIED_FIELDS = ['appId', 'conversationType', 'participants', 'group', 'listed'] as const;

/** The app-wide list reads the timeline's shared fields only, not its entries; its last message from `last` (ADR 0048). */
const APP_CONVERSATION_FIELDS = {
  _rev: 1,
  conversationId: 1,
  conversationType: 1,
  participants: 1,
  group: 1,
  last: 1,
  clearedUpTo: 1,
  lastMessageSeq: 1,
  createdAt: 1,
  updatedAt: 1,
} as const;

export function storeOf(db: Db, collection: { name: string; text: readonly string[] }): TextFieldsStore {
  return new TextFieldsStore(new MongoDocumentStore(db, collection.name), collection.text);
}

const APP_CONVERSATION_FIELD_SET: ReadonlySet<string> = new Set(Object.keys(APP_CONVERSATION_FIELDS));

/** Negative when `a` comes first in the order (Mongo's order of numbers and of ASCII strings). */
function compareInOrder(order: KeysetOrder, a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < order.length; i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x === y) continue;
    const before = typeof x === typeof y ? x < y : typeof x === 'number';
    return (before ? -1 : 1) * order[i]![1];
  }
  return 0;
}

/**
 * Every document of one of this database's collections as a reader sees it, in its stored encoding: a
 * timeline or inbox head completed with its revisions, and nothing for the revision collections (how
 * they were cut depends on the batches a writer got; chatctl's rebuild compares these, ADR 0056).
 */
export async function readModelDocuments(db: Db, name: string): Promise<StoredRecord[]> {
  if (name === APPENDS.name || name === MOVED_FROM.inboxRevisions) return [];
  const stored = await db.collection<StoredRecord>(name).find({}).toArray();
  const appends = new GatheredInserts(new MongoDocumentStore(db, APPENDS.name));
  if (name === MOVED_FROM.copies) {
    // The copies as read: those in the appends collection (a scan by key prefix: tools and tests only) and the moved ones.
    const moved = await db.collection<StoredRecord>(APPENDS.name).find({ _id: { $regex: `^${APPENDS.copies}` } }).toArray();
    const found = await copiesStore(db, appends).findMany([...stored, ...moved].map((document) => document._id.replace(APPENDS.copies, '')));
    return [...found.values()];
  }
  const stores = revisionStores(db, appends);
  const kind = name === CONVERSATION_COLLECTIONS.timelines.name ? 'timelines' : name === CONVERSATION_COLLECTIONS.inboxes.name ? 'inboxes' : undefined;
  if (!kind) return stored;
  const fields = storeOf(db, CONVERSATION_COLLECTIONS[kind]);
  const completed = await stores[kind].complete(new Map(stored.map((document) => [document._id, fields.decode(document)])));
  return [...completed.values()].map((document) => fields.encode(document));
}

/** A timeline as the app-wide list shows it: its shared fields, the last message put back. */
function appConversationOf(stored: StoredRecord): AppConversation {
  const { last, clearedUpTo, ...shared } = withListedLastMessage(stored);
  void last;
  void clearedUpTo;
  return stripStoredFields(shared as unknown as Stored<AppConversation>);
}

/**
 * Top-level fields these read models always write as strings (never arrays): with them named, the
 * FerretDB runner reads an app's timelines and a user's member documents through the `app_recent`,
 * `participants` and `owner` indexes instead of decoding every app's (ADR 0074's addendum).
 */
const APP_SCALARS = { timelines: byScalarFields('appId', 'conversationType'), members: byScalarFields('appId', 'owner') };

/** The two scans (now index reads of the app's documents), decoding what the stores encode. */
class MongoScans implements ConversationScans {
  constructor(
    private readonly db: Db,
    private readonly timelines: TextFieldsStore,
    private readonly timelineRevisions: RevisionTailStore,
    private readonly members: TextFieldsStore,
  ) {}

  async timelinesWith(appId: string, uid: string): Promise<TimelineDoc[]> {
    const found = await this.db.collection<StoredRecord>(CONVERSATION_COLLECTIONS.timelines.name).find({ appId, conversationType: 'user', participants: uid, ...APP_SCALARS.timelines }).toArray();
    const heads = new Map(found.map((stored) => [stored._id, this.timelines.decode(stored)]));
    const timelines = await this.timelineRevisions.complete(heads);
    return [...timelines.values()].map((stored) => stripStoredFields(withListedLastMessage(stored) as unknown as Stored<TimelineDoc>));
  }

  async membersOf(appId: string, uid: string): Promise<ConversationMemberDoc[]> {
    const found = await this.db.collection<StoredRecord>(CONVERSATION_COLLECTIONS.members.name).find({ appId, owner: uid, ...APP_SCALARS.members }).toArray();
    return found.map((stored) => stripStoredFields(this.members.decode(stored) as unknown as Stored<ConversationMemberDoc>));
  }
}

/**
 * The conversations service's read models in MongoDB: one `apply` every event goes through (Kafka
 * consumer and read-your-writes alike), and the queries the API needs.
 */
export class ConversationReadModels implements EventApplier {
  readonly conversations: ConversationReadModel;
  private readonly appliers: EventApplier;
  private readonly users: Collection<Stored<PeerUserDoc>>;
  private readonly globalPins: Collection<Stored<GlobalPinsDoc>>;
  private readonly timelines: Collection<StoredRecord>;
  private readonly timelineFields: TextFieldsStore;
  private readonly timelineRevisions: RevisionTailStore;
  private readonly inboxRevisions: RevisionTailStore;

  constructor(private readonly db: Db) {
    const members = storeOf(db, CONVERSATION_COLLECTIONS.members);
    // A run's revisions and copies go to the store in one insert command (ADR 0089).
    const appends = new GatheredInserts(new MongoDocumentStore(db, APPENDS.name));
    const revisions = revisionStores(db, appends);
    this.timelineFields = revisions.timelineHeads;
    this.timelineRevisions = revisions.timelines;
    this.inboxRevisions = revisions.inboxes;
    const stores: ConversationStores = {
      timelines: new ListCopyOnReadStore(this.timelineRevisions),
      history: storeOf(db, CONVERSATION_COLLECTIONS.history),
      members,
      copies: copiesStore(db, appends),
      inboxes: new CompactInboxStore(revisions.inboxes),
      scans: new MongoScans(db, revisions.timelineHeads, this.timelineRevisions, members),
    };
    this.conversations = new ConversationReadModel(stores);
    // The consumer's partitions arrive together and the request path's events beside them: concurrent
    // runs share one call, one command per collection (ADR 0067).
    this.appliers = coalescedRuns(allOf(mongoProjection(db, 'users', usersProjection), mongoProjection(db, 'global_pins', globalPinsProjection), this.conversations));
    this.users = db.collection('users');
    this.globalPins = db.collection('global_pins');
    this.timelines = db.collection(CONVERSATION_COLLECTIONS.timelines.name);
  }

  /**
   * Resolves once the head folds started behind the writes so far are stored (ADR 0130): what a reader
   * of the stored heads themselves (a test, a migration check) waits for. Readers through these models
   * need not: a head behind its revisions reads the same.
   */
  async settled(): Promise<void> {
    await Promise.all([this.timelineRevisions.settled(), this.inboxRevisions.settled()]);
  }

  async ensureIndexes(): Promise<void> {
    // Used by MongoDB proper; FerretDB v1 answers these queries by reading the collection (ADR 0006).
    await ensureIndexes(this.db, CONVERSATION_COLLECTIONS.timelines.name, [
      { keys: { appId: 1, listed: 1, updatedAt: -1, lastMessageSeq: -1 }, options: { name: 'app_recent' } },
      { keys: { appId: 1, participants: 1 }, options: { name: 'participants' } },
    ]);
    await ensureIndexes(this.db, CONVERSATION_COLLECTIONS.members.name, [{ keys: { appId: 1, owner: 1 }, options: { name: 'owner' } }]);
  }

  /** Applies a batch to every read model that cares; safe to call any number of times, in any interleaving of streams. */
  apply(events: readonly EventEnvelope[]): Promise<void> {
    return this.appliers.apply(events);
  }

  async findUser(appId: string, uid: string): Promise<PeerUserDoc | null> {
    const doc = await this.users.findOne({ _id: userDocId(appId, uid) } as Filter<Stored<PeerUserDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  async findUsers(appId: string, uids: readonly string[]): Promise<Map<string, PeerUserDoc>> {
    const docs = await findByIds(this.users, uids.map((uid) => userDocId(appId, uid)));
    return new Map([...docs.values()].map((doc) => [doc.uid, stripStoredFields<PeerUserDoc>(doc)]));
  }

  /** Uids of users with any of the tags and/or whose name or uid contains `search`. */
  async findUserIds(appId: string, criteria: { tags?: string[]; search?: string }): Promise<string[]> {
    const filter: Record<string, unknown> = { appId };
    if (criteria.tags) filter['tags'] = { $in: criteria.tags };
    if (criteria.search !== undefined) {
      const pattern = { $regex: escapeRegex(criteria.search), $options: 'i' };
      filter['$or'] = [{ name: pattern }, { uid: pattern }];
    }
    const docs = await this.users.find(filter as Filter<Stored<PeerUserDoc>>, { projection: { uid: 1 } }).toArray();
    return docs.map((doc) => doc.uid);
  }

  /** Guids of groups with any of the tags and/or whose name or guid contains `search`. */
  async findGroupIds(appId: string, criteria: { tags?: string[]; search?: string }): Promise<string[]> {
    const filter: Record<string, unknown> = { appId, conversationType: 'group', group: { $exists: true }, ...APP_SCALARS.timelines };
    if (criteria.tags) filter['group.tags'] = { $in: criteria.tags };
    if (criteria.search !== undefined) {
      const pattern = { $regex: escapeRegex(criteria.search), $options: 'i' };
      filter['$or'] = [{ 'group.name': pattern }, { 'group.guid': pattern }];
    }
    const docs = await this.timelines.find(filter, { projection: { group: 1 } }).toArray();
    return docs.map((doc) => (doc['group'] as { guid: string }).guid);
  }

  async findGlobalPins(appId: string): Promise<GlobalPin[]> {
    const doc = await this.globalPins.findOne({ _id: appId } as Filter<Stored<GlobalPinsDoc>>);
    return doc?.pins ?? [];
  }

  /** Every conversation of the app once, by last activity (the list without an acting user). */
  async listForApp(appId: string, filter: ConversationFilter, position: PagePosition, perPage: number): Promise<AppConversationPage> {
    const base: Record<string, unknown> = { appId, listed: true, ...APP_SCALARS.timelines };
    if (filter.conversationType) base['conversationType'] = filter.conversationType;
    if (filter.peers) {
      const peers = filter.peers;
      base['$or'] = [{ participants: { $in: peers } }, { 'group.guid': { $in: peers } }];
    }
    // The order's fields change with every message, and the stored heads hold them only as of their last
    // fold (ADR 0056): the matching heads are completed with their revisions, then ordered and paged here.
    // On FerretDB the query read the whole collection and sorted it in the store before; on MongoDB this
    // gives up the `app_recent` index for the order (the filter still uses it).
    const found = await this.timelines.find(base as Filter<StoredRecord>, { projection: APP_CONVERSATION_FIELDS }).toArray();
    const heads = new Map(found.map((stored) => [stored._id, this.timelineFields.decode(stored)]));
    const keyed = [...(await this.timelineRevisions.complete(heads, APP_CONVERSATION_FIELD_SET)).values()].map((doc) => ({ doc, key: keysetKeyOf(APP_CONVERSATION_ORDER, doc) }));
    keyed.sort((a, b) => compareInOrder(APP_CONVERSATION_ORDER, a.key, b.key));
    const after = position.after;
    const following = after === undefined ? keyed : keyed.filter(({ key }) => compareInOrder(APP_CONVERSATION_ORDER, key, after) > 0);
    const page = following.slice(position.skip, position.skip + perPage);
    const more = position.skip + page.length < following.length;
    const last = page.at(-1);
    return {
      total: keyed.length,
      items: page.map(({ doc }) => appConversationOf(doc)),
      more,
      last: last ? last.key : undefined,
    };
  }
}
