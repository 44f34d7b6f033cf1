import type { EventEnvelope, GlobalPin } from '@chat/contracts';
import { GuardedProjectionWriter, ensureIndexes, stripStoredFields } from '@chat/mongo';
import type { Stored } from '@chat/mongo';
import type { Collection, Db, Filter } from 'mongodb';
import type { PeerUserDoc, UserConversationDoc } from '../domain/conversationView.js';
import { globalPinsProjection } from '../projections/globalPins.js';
import type { GlobalPinsDoc } from '../projections/globalPins.js';
import { userConversationDocId, userConversationsProjection } from '../projections/userConversations.js';
import { userDocId, usersProjection } from '../projections/users.js';

export interface ConversationPage {
  total: number;
  items: UserConversationDoc[];
}

/**
 * The conversations service's read models in MongoDB: the guarded writers every event goes
 * through (Kafka consumer and read-your-writes alike) and the queries the API needs.
 */
export class ConversationReadModels {
  private readonly conversations: GuardedProjectionWriter<UserConversationDoc>;
  private readonly users: GuardedProjectionWriter<PeerUserDoc>;
  private readonly globalPins: GuardedProjectionWriter<GlobalPinsDoc>;

  constructor(db: Db) {
    this.conversations = new GuardedProjectionWriter(db, 'user_conversations', userConversationsProjection);
    this.users = new GuardedProjectionWriter(db, 'users', usersProjection);
    this.globalPins = new GuardedProjectionWriter(db, 'global_pins', globalPinsProjection);
  }

  async ensureIndexes(db: Db): Promise<void> {
    await ensureIndexes(db, 'user_conversations', [
      { keys: { appId: 1, owner: 1, hasMessages: 1, updatedAt: -1, lastMessageSeq: -1 }, options: { name: 'owner_recent' } },
      { keys: { appId: 1, owner: 1, pinOrder: -1 }, options: { name: 'owner_pins' } },
      { keys: { appId: 1, owner: 1, peer: 1 }, options: { name: 'owner_peer' } },
    ]);
  }

  /** Applies one event to every read model that cares; safe to call any number of times. */
  async apply(event: EventEnvelope): Promise<void> {
    await this.users.apply(event);
    await this.conversations.apply(event);
    await this.globalPins.apply(event);
  }

  async findUser(appId: string, uid: string): Promise<PeerUserDoc | null> {
    const doc = await this.users.documents().findOne({ _id: userDocId(appId, uid) } as Filter<Stored<PeerUserDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  async findUsers(appId: string, uids: readonly string[]): Promise<Map<string, PeerUserDoc>> {
    if (uids.length === 0) return new Map();
    const ids = [...new Set(uids)].map((uid) => userDocId(appId, uid));
    const docs = await this.users
      .documents()
      .find({ _id: { $in: ids } } as Filter<Stored<PeerUserDoc>>)
      .toArray();
    return new Map(docs.map((doc) => [doc.uid, stripStoredFields(doc)]));
  }

  async findConversation(appId: string, owner: string, conversationId: string): Promise<UserConversationDoc | null> {
    const id = userConversationDocId(appId, owner, conversationId);
    const doc = await this.conversations.documents().findOne({ _id: id } as Filter<Stored<UserConversationDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  async findGlobalPins(appId: string): Promise<GlobalPin[]> {
    const doc = await this.globalPins.documents().findOne({ _id: appId } as Filter<Stored<GlobalPinsDoc>>);
    return doc?.pins ?? [];
  }

  /**
   * A user's conversations in CometChat's order: app-wide pins (in their configured order), then
   * the user's own pins (newest first), then the rest by last activity. The pinned prefix is at
   * most ten documents, so it is read whole and the rest is paged by index.
   */
  async listForUser(
    appId: string,
    owner: string,
    globalPins: readonly GlobalPin[],
    page: number,
    perPage: number,
  ): Promise<ConversationPage> {
    const collection: Collection<Stored<UserConversationDoc>> = this.conversations.documents();
    const base = { appId, owner, hasMessages: true };
    const globalPeers = globalPins.filter((p) => p.conversationType === 'user').map((p) => p.conversationWith);

    const [globallyPinned, ownPinned, total] = await Promise.all([
      globalPeers.length > 0
        ? collection.find({ ...base, peer: { $in: globalPeers } }).toArray()
        : Promise.resolve([]),
      collection.find({ ...base, pinnedAt: { $exists: true } }).sort({ pinOrder: -1 }).toArray(),
      collection.countDocuments(base),
    ]);
    const globalOrder = (doc: UserConversationDoc) => globalPeers.indexOf(doc.peer);
    globallyPinned.sort((a, b) => globalOrder(a) - globalOrder(b));
    const prefix = [...globallyPinned, ...ownPinned.filter((doc) => !globalPeers.includes(doc.peer))];

    const offset = (page - 1) * perPage;
    const fromPrefix = prefix.slice(offset, offset + perPage);
    const remaining = perPage - fromPrefix.length;
    let rest: Stored<UserConversationDoc>[] = [];
    if (remaining > 0) {
      rest = await collection
        .find({ ...base, _id: { $nin: prefix.map((doc) => doc._id) } } as Filter<Stored<UserConversationDoc>>)
        .sort({ updatedAt: -1, lastMessageSeq: -1 })
        .skip(Math.max(0, offset - prefix.length))
        .limit(remaining)
        .toArray();
    }
    return { total, items: [...fromPrefix, ...rest].map((doc) => stripStoredFields(doc)) };
  }
}
