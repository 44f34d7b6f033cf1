import type { EventEnvelope, GlobalPin } from '@chat/contracts';
import { MongoDocumentStore, allOf, ensureIndexes, findByIds, findPage, keysetKeyOf, mongoProjection, stripStoredFields } from '@chat/mongo';
import type { EventApplier, KeysetOrder, PagePosition, Stored, StoredRecord } from '@chat/mongo';
import type { Collection, Db, Filter } from 'mongodb';
import type { ConversationMemberDoc } from '../domain/conversationMember.js';
import type { TimelineDoc } from '../domain/conversationTimeline.js';
import type { AppConversation, PeerUserDoc } from '../domain/conversationView.js';
import { ConversationReadModel } from '../projections/conversationReadModel.js';
import type { ConversationFilter, ConversationScans, ConversationStores } from '../projections/conversationReadModel.js';
import { globalPinsProjection } from '../projections/globalPins.js';
import type { GlobalPinsDoc } from '../projections/globalPins.js';
import { CompactInboxStore } from '../projections/compactInboxStore.js';
import { ListCopyOnReadStore, withListedLastMessage } from '../projections/listCopyStore.js';
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

/** The app-wide list reads the timeline's shared fields only, not its entries; its last message from `last` (ADR 0048). */
const APP_CONVERSATION_FIELDS = {
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

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function storeOf(db: Db, collection: { name: string; text: readonly string[] }): TextFieldsStore {
  return new TextFieldsStore(new MongoDocumentStore(db, collection.name), collection.text);
}

/** A timeline as the app-wide list shows it: its shared fields, the last message put back. */
function appConversationOf(stored: StoredRecord): AppConversation {
  const { last, clearedUpTo, ...shared } = withListedLastMessage(stored);
  void last;
  void clearedUpTo;
  return stripStoredFields(shared as unknown as Stored<AppConversation>);
}

/** The two scans, decoding what the stores encode. */
class MongoScans implements ConversationScans {
  constructor(
    private readonly db: Db,
    private readonly timelines: TextFieldsStore,
    private readonly members: TextFieldsStore,
  ) {}

  async timelinesWith(appId: string, uid: string): Promise<TimelineDoc[]> {
    const found = await this.db.collection<StoredRecord>(CONVERSATION_COLLECTIONS.timelines.name).find({ appId, conversationType: 'user', participants: uid }).toArray();
    return found.map((stored) => stripStoredFields(withListedLastMessage(this.timelines.decode(stored)) as unknown as Stored<TimelineDoc>));
  }

  async membersOf(appId: string, uid: string): Promise<ConversationMemberDoc[]> {
    const found = await this.db.collection<StoredRecord>(CONVERSATION_COLLECTIONS.members.name).find({ appId, owner: uid }).toArray();
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

  constructor(private readonly db: Db) {
    const timelines = storeOf(db, CONVERSATION_COLLECTIONS.timelines);
    const members = storeOf(db, CONVERSATION_COLLECTIONS.members);
    this.timelineFields = timelines;
    const stores: ConversationStores = {
      timelines: new ListCopyOnReadStore(timelines),
      history: storeOf(db, CONVERSATION_COLLECTIONS.history),
      members,
      copies: storeOf(db, CONVERSATION_COLLECTIONS.copies),
      inboxes: new CompactInboxStore(storeOf(db, CONVERSATION_COLLECTIONS.inboxes)),
      scans: new MongoScans(db, timelines, members),
    };
    this.conversations = new ConversationReadModel(stores);
    this.appliers = allOf(mongoProjection(db, 'users', usersProjection), mongoProjection(db, 'global_pins', globalPinsProjection), this.conversations);
    this.users = db.collection('users');
    this.globalPins = db.collection('global_pins');
    this.timelines = db.collection(CONVERSATION_COLLECTIONS.timelines.name);
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
    const filter: Record<string, unknown> = { appId, conversationType: 'group', group: { $exists: true } };
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
    const base: Record<string, unknown> = { appId, listed: true };
    if (filter.conversationType) base['conversationType'] = filter.conversationType;
    if (filter.peers) {
      const peers = filter.peers;
      base['$or'] = [{ participants: { $in: peers } }, { 'group.guid': { $in: peers } }];
    }
    const { total, items, more } = await findPage(this.timelines, base as Filter<StoredRecord>, APP_CONVERSATION_ORDER, position, perPage, APP_CONVERSATION_FIELDS);
    const last = items.at(-1);
    return {
      total,
      items: items.map((doc) => appConversationOf(this.timelineFields.decode(doc))),
      more,
      last: last ? keysetKeyOf(APP_CONVERSATION_ORDER, last) : undefined,
    };
  }
}
