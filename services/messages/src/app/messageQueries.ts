import { ApiError, groupConversationId, userConversationId } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import type { PagePosition } from '@chat/mongo';
import type { MessageCursor, MessageQuery, UnseenBy } from '../adapters/messageQuery.js';
import type { MessagesReadModels } from '../adapters/readModels.js';
import { mentionedUidsOf, withMentionInfo } from '../domain/mentionInfo.js';
import type { MentionInfoWanted } from '../domain/mentionInfo.js';
import { messageView } from '@chat/contracts';
import { present } from './conversationLog.js';
import type { ApiObject, ConversationLog } from './conversationLog.js';

/** Reads of messages: one message, the lists and the queries that scope them to what the caller may see. */
export class MessageQueries {
  constructor(private readonly deps: { log: ConversationLog; readModels: MessagesReadModels }) {}

  async get(context: RequestContext, id: string): Promise<ApiObject> {
    return messageView(await this.deps.log.visibleMessage(context, id), context.actor.uid);
  }

  /** Messages by cursor (`id`/`sentAt` with `affix`), oldest first. */
  async listByCursor(context: RequestContext, query: MessageQuery, cursor: MessageCursor | null, limit: number): Promise<ApiObject[]> {
    const docs = await this.deps.readModels.listMessages(query, cursor, limit);
    return docs.map((doc) => messageView(doc, context.actor.uid));
  }

  async countMatching(query: MessageQuery): Promise<number> {
    return this.deps.readModels.countMessages(query);
  }

  /** A page in id order, by offset or after a cursor's id; `last` is the page's last id (a cursor's key). */
  async listByPage(context: RequestContext, query: MessageQuery, position: PagePosition, perPage: number) {
    const { total, items, more } = await this.deps.readModels.pageMessages(query, position, perPage);
    const last = items.at(-1);
    return { total, more, last: last ? [last.seq] : undefined, items: items.map((doc) => messageView(doc, context.actor.uid)) };
  }

  /** What `GET /messages` may show: everything for the app, only the user's own conversations on their behalf. */
  async visibilityOf(context: RequestContext): Promise<MessageQuery['visibleTo']> {
    const { appId, uid } = context.actor;
    if (!uid) return undefined;
    return { uid, guids: await this.deps.readModels.groupsOf(appId, uid) };
  }

  async blockedBy(context: RequestContext): Promise<string[]> {
    const { appId, uid } = context.actor;
    if (!uid) return [];
    const { users } = await this.deps.readModels.findFacts(appId, { users: [uid] });
    return users.get(uid)?.blocked ?? [];
  }

  /** The acting user's read (or delivery) marks: of one conversation, or of every one they have marked. */
  async marksOf(context: RequestContext, which: 'read' | 'delivered', conversationId?: string): Promise<UnseenBy> {
    const { appId, uid } = context.actor;
    return this.deps.readModels.marksOf(appId, uid ?? '', which, conversationId);
  }

  /** Listed messages with their mentioned users' tags and/or block relations to the viewer. */
  async withMentionInfo(context: RequestContext, items: ApiObject[], wanted: MentionInfoWanted): Promise<ApiObject[]> {
    const uids = mentionedUidsOf(items);
    if (uids.length === 0) return items;
    const viewer = wanted.blockedFor !== undefined ? [wanted.blockedFor] : [];
    const { users } = await this.deps.readModels.findFacts(context.actor.appId, { users: [...uids, ...viewer] });
    return items.map((item) => withMentionInfo(item, users, wanted));
  }

  /**
   * The conversation between the acting user and `peer`; the peer must exist. The app acting alone
   * (no `onBehalfOf`) reads every one-on-one message `peer` sent or received.
   */
  async userConversationQuery(context: RequestContext, peer: string): Promise<MessageQuery> {
    const { appId, uid } = context.actor;
    const facts = await this.deps.log.factsWithPatience(appId, { users: [peer] }, (f) => f.users.has(peer));
    if (!present(facts.users.get(peer))) throw new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${peer} does not exist.`);
    if (uid === undefined) return { appId, receiverType: 'user', visibleTo: { uid: peer, guids: [] } };
    return { appId, conversationId: userConversationId(uid, peer) };
  }

  /**
   * Where a thread reply goes: the conversation of its first message, as seen from the replying
   * user (in a one-on-one conversation, to the other participant). Unknown or invisible → as unknown.
   */
  async threadReceiver(context: RequestContext, parentId: string, sender: string): Promise<{ receiver: string; receiverType: 'user' | 'group' }> {
    const parent = await this.deps.log.existingMessage(context.actor.appId, parentId);
    if (parent.receiverType === 'group') return { receiver: parent.receiver, receiverType: 'group' };
    return { receiver: parent.sender === sender ? parent.receiver : parent.sender, receiverType: 'user' };
  }

  /** A group's conversation; on someone's behalf only for a member. */
  async groupConversationQuery(context: RequestContext, guid: string): Promise<MessageQuery> {
    const { appId, uid } = context.actor;
    const facts = await this.deps.log.factsWithPatience(appId, { users: [], guid, members: uid ? [uid] : [] }, (f) => f.group !== null);
    if (!facts.group) throw new ApiError('ERR_GUID_NOT_FOUND', `The group with guid ${guid} does not exist.`);
    if (uid) {
      const standing = facts.memberships.get(uid)?.standing;
      if (standing === 'banned') throw new ApiError('ERR_BANNED_GROUPMEMBER', `${uid} is banned from the group ${guid}.`);
      if (standing !== 'member') throw new ApiError('ERR_GROUP_NOT_JOINED', `${uid} is not a member of the group ${guid}.`);
    }
    return { appId, conversationId: groupConversationId(guid) };
  }

  /** The replies of a thread; its first message must be visible to the caller. */
  async threadQuery(context: RequestContext, parentId: string): Promise<MessageQuery> {
    const parent = await this.deps.log.visibleMessage(context, parentId);
    return { appId: context.actor.appId, parentId: parent.id };
  }
}
