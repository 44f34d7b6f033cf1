import { ProjectedReadModels, byScalarFields, ensureIndexes, findPage, stripStoredFields } from '@chat/mongo';
import type { PagePosition, Stored } from '@chat/mongo';
import type { Collection, Filter } from 'mongodb';
import { withMessageScalars } from '../messageQuery.js';
import type { MessageDoc } from '../../projections/messages.js';
import { messageInteractionsId, messageInteractionsProjection } from '../../projections/personalMarks/messageInteractions.js';
import type { Interaction, MessageInteractionsDoc } from '../../projections/personalMarks/messageInteractions.js';
import { savedMessagesId, savedMessagesProjection } from '../../projections/personalMarks/savedMessages.js';
import type { SavedEntry, SavedMessagesDoc } from '../../projections/personalMarks/savedMessages.js';
import { threadSubscriptionId, threadSubscriptionsProjection } from '../../projections/personalMarks/threadSubscriptions.js';
import type { ThreadSubscriptionDoc } from '../../projections/personalMarks/threadSubscriptions.js';

/** Which threads an app-wide thread list shows: every thread, one conversation's, or one user's one-on-one threads. */
export interface ThreadScope {
  appId: string;
  conversationId?: string;
  /** One-on-one threads this user sent or received. */
  oneOnOneOf?: string;
  /** Only threads this user can see: their one-on-one conversations and their groups'. */
  visibleTo?: { uid: string; guids: readonly string[] } | undefined;
}

/**
 * The string fields the per-user thread reads compare, leading fields of `threads_of_user` and of the
 * messages' `sender_order` index: on FerretDB each read searches that index, not every app's documents.
 */
const BY_USER = { subscriptions: byScalarFields('appId', 'uid'), sender: byScalarFields('appId', 'sender') };
/** A thread's replies by the string fields leading the messages' `thread_order` index. */
const BY_THREAD = byScalarFields('appId', 'parentId');

/**
 * What users keep for themselves about messages: saved lists, thread subscriptions, interactions
 * (written by the projection runtime, like every read model); and the thread questions asked of the
 * messages read model (replies counted there), read only.
 */
export class PersonalReadModels extends ProjectedReadModels {
  private readonly saved = this.projected('saved_messages', savedMessagesProjection);
  private readonly subscriptions = this.projected('thread_subscriptions', threadSubscriptionsProjection);
  private readonly interactions = this.projected('message_interactions', messageInteractionsProjection);
  /** Read only: the messages read model's replies, written by MessagesReadModels. */
  private readonly messages: Collection<Stored<MessageDoc>> = this.db.collection('messages');

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, 'thread_subscriptions', [{ keys: { appId: 1, uid: 1, subscribed: 1 }, options: { name: 'threads_of_user' } }]);
  }

  /** The user's saved messages, most recently saved first. */
  async savedOf(appId: string, uid: string): Promise<SavedEntry[]> {
    const doc = await this.saved.findOne({ _id: savedMessagesId(appId, uid) } as Filter<Stored<SavedMessagesDoc>>);
    return doc?.saved ?? [];
  }

  async subscriptionOf(appId: string, uid: string, parentId: string): Promise<ThreadSubscriptionDoc | null> {
    const doc = await this.subscriptions.findOne({ _id: threadSubscriptionId(appId, uid, parentId) } as Filter<Stored<ThreadSubscriptionDoc>>);
    return doc ? stripStoredFields<ThreadSubscriptionDoc>(doc) : null;
  }

  /** Every thread the user said something about (explicitly, or by replying or being mentioned). */
  async subscriptionsOf(appId: string, uid: string): Promise<ThreadSubscriptionDoc[]> {
    const docs = await this.subscriptions.find({ appId, uid, ...BY_USER.subscriptions } as Filter<Stored<ThreadSubscriptionDoc>>).toArray();
    return docs.map((doc) => stripStoredFields<ThreadSubscriptionDoc>(doc));
  }

  /** Ids of the threads the user started that have replies (a sender follows their own thread unasked). */
  async threadsStartedBy(appId: string, uid: string): Promise<string[]> {
    const docs = await this.messages
      .find({ appId, sender: uid, replyCount: { $gt: 0 }, ...BY_USER.sender } as Filter<Stored<MessageDoc>>, { projection: { id: 1 } })
      .toArray();
    return docs.map((doc) => doc.id);
  }

  /** A page of the app's threads (messages with replies), newest thread first. */
  async pageThreads(scope: ThreadScope, position: PagePosition, perPage: number): Promise<{ total: number; items: MessageDoc[] }> {
    const filter: Record<string, unknown> = { appId: scope.appId, replyCount: { $gt: 0 } };
    if (scope.conversationId !== undefined) filter['conversationId'] = scope.conversationId;
    const partiesOf = (uid: string) => [{ receiverType: 'user', sender: uid }, { receiverType: 'user', receiver: uid }];
    if (scope.oneOnOneOf !== undefined) filter['$or'] = partiesOf(scope.oneOnOneOf);
    if (scope.visibleTo !== undefined) {
      const { uid, guids } = scope.visibleTo;
      filter['$or'] = [...partiesOf(uid), ...(guids.length > 0 ? [{ receiverType: 'group', receiver: { $in: [...guids] } }] : [])];
    }
    const { total, items } = await findPage(this.messages, withMessageScalars(filter) as Filter<Stored<MessageDoc>>, [['seq', -1]], position, perPage);
    return { total, items: items.map((doc) => stripStoredFields(doc as Stored<MessageDoc>)) };
  }

  /** The newest reply of each thread (the inbox's `lastReply`), one indexed read per thread. */
  async lastReplies(appId: string, parentIds: readonly string[]): Promise<Map<string, MessageDoc>> {
    const found = await Promise.all(
      parentIds.map((parentId) => this.messages.find({ appId, parentId, ...BY_THREAD } as Filter<Stored<MessageDoc>>).sort({ seq: -1 }).limit(1).toArray()),
    );
    const last = new Map<string, MessageDoc>();
    for (const [index, [doc]] of found.entries()) {
      const parentId = parentIds[index];
      if (doc && parentId !== undefined) last.set(parentId, stripStoredFields(doc));
    }
    return last;
  }

  /** Who interacted with which of the message's elements. */
  async interactionsOf(appId: string, id: string): Promise<Interaction[]> {
    const doc = await this.interactions.findOne({ _id: messageInteractionsId(appId, id) } as Filter<Stored<MessageInteractionsDoc>>);
    return doc?.interactions ?? [];
  }
}
