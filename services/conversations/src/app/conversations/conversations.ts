import { ApiError, epochSeconds, isUid, normalizeUid, userConversationId, groupConversationId } from '@chat/contracts';
import type { AsOf, RequestContext } from '@chat/contracts';
import { listMeta } from '@chat/http';
import type { CursorKey, ListCursor, Pagination } from '@chat/http';
import { conversationDeletionDecider, conversationDeletionStream } from '../../domain/conversationDeletion.js';
import { renderConversation, renderSharedConversation } from '../../domain/conversationView.js';
import type { ConversationResource, ConversationType, RenderOptions, UserConversation } from '../../domain/conversationView.js';
import type { ConversationFilter } from '../../projections/conversationReadModel.js';
import type { Acknowledgement, ConversationAccess, ConversationsDeps, Target } from './conversationAccess.js';
import { uidNotFound } from './conversationAccess.js';

export interface Paged<T> {
  data: T[];
  meta: { pagination: Pagination; cursor: { next: string | null } };
}

export interface ListQuery {
  perPage: number;
  conversationType?: ConversationType;
  unread?: boolean;
  withTags?: boolean;
  tags?: string[];
  withUserAndGroupTags?: boolean;
  userTags?: string[];
  groupTags?: string[];
  searchKey?: string;
}

/** Reads of the conversations (one, a past one, the list) and their deprecated id addressing. */
export class ConversationsApp {
  constructor(
    private readonly deps: ConversationsDeps,
    private readonly access: ConversationAccess,
  ) {}

  /** Whether the conversation's read model has applied what a consistency token names (see `timelineHasApplied`). */
  hasApplied(context: RequestContext, actingUid: string, target: Target, positions: ReadonlyMap<string, number>): Promise<boolean> {
    const conversationId =
      target.type === 'user' ? userConversationId(normalizeUid(actingUid), normalizeUid(target.id)) : groupConversationId(target.id);
    return this.deps.readModels.conversations.timelineHasApplied(context.actor.appId, conversationId, positions);
  }

  async getConversation(context: RequestContext, actingUid: string, target: Target): Promise<ConversationResource> {
    const facts = await this.access.accessible(context.actor, actingUid, target);
    return this.access.render(facts, facts.doc);
  }

  /**
   * The conversation as it was at `asOf` (ADR 0033): the live read's access rules (today's standing),
   * the view folded from the log, rendered as the live read renders it (the peer's profile and the
   * app-wide pins are today's).
   */
  async getConversationAsOf(context: RequestContext, actingUid: string, target: Target, asOf: AsOf): Promise<ConversationResource> {
    const facts = await this.access.facts(context.actor, actingUid, target);
    const past = await this.deps.asOf.conversation(context.actor.appId, facts.ref, asOf);
    if (!past.conversation?.listed) {
      throw new ApiError('ERR_CONVERSATION_NOT_ACCESSIBLE', `User ${facts.me} had no conversation ${facts.ref.conversationId} to show at that point.`);
    }
    return this.access.render({ ...facts, ...(past.group ? { group: past.group } : {}) }, await this.withoutErased(context.actor.appId, past.conversation));
  }

  /** A last message deleted permanently since (its copy is gone) stays erased in the past too. */
  private async withoutErased(appId: string, conversation: UserConversation): Promise<UserConversation> {
    if (conversation.lastMessage === undefined || conversation.lastMessageSeq === 0) return conversation;
    const copy = await this.deps.readModels.conversations.history(appId, conversation.conversationId).message(conversation.lastMessageSeq);
    if (copy !== null) return conversation;
    const { lastMessage, ...rest } = conversation;
    void lastMessage;
    return rest;
  }

  /** The deprecated `/conversations/{conversationId}` addressing, resolved to a user or group target. */
  private async targetOf(appId: string, actingUid: string, conversationId: string): Promise<Target> {
    const me = normalizeUid(actingUid);
    if (!isUid(me)) throw uidNotFound(actingUid);
    const timeline = conversationId.length <= 300 ? await this.deps.readModels.conversations.timeline(appId, conversationId) : null;
    if (!timeline) {
      throw new ApiError('ERR_CONVERSATION_NOT_FOUND', `The conversation ${conversationId} does not exist.`);
    }
    if (timeline.conversationType === 'group') {
      return { type: 'group', id: timeline.group?.guid ?? conversationId.replace(/^group_/, '') };
    }
    const participants = timeline.participants ?? [];
    if (!participants.includes(me)) {
      throw new ApiError('ERR_CONVERSATION_NOT_ACCESSIBLE', `User ${me} is not a participant of the conversation ${conversationId}.`);
    }
    return { type: 'user', id: participants.find((uid) => uid !== me) ?? me };
  }

  async getConversationById(context: RequestContext, actingUid: string, conversationId: string): Promise<ConversationResource> {
    const target = await this.targetOf(context.actor.appId, actingUid, conversationId);
    return this.getConversation(context, actingUid, target);
  }

  /** Deprecated delete: the conversation's messages so far disappear for every participant. */
  async deleteConversationById(context: RequestContext, actingUid: string, conversationId: string): Promise<Acknowledgement> {
    const target = await this.targetOf(context.actor.appId, actingUid, conversationId);
    const facts = await this.access.facts(context.actor, actingUid, target);
    const upTo = facts.timeline?.lastMessageSeq ?? 0;
    const now = this.access.now();
    if (upTo > 0) {
      await this.access.run(
        context,
        conversationDeletionDecider,
        conversationDeletionStream(context.actor.appId, facts.ref.conversationId),
        {
          type: 'DeleteConversation',
          conversationId: facts.ref.conversationId,
          conversationType: facts.ref.conversationType,
          upToMessageId: upTo,
          deletedBy: facts.me,
          now: epochSeconds(now),
        },
        now,
      );
    }
    return { success: true, message: `The conversation ${facts.ref.conversationId} has been deleted successfully for all the users.` };
  }

  private async filterOf(appId: string, query: ListQuery): Promise<ConversationFilter> {
    const filter: ConversationFilter = {
      ...(query.conversationType ? { conversationType: query.conversationType } : {}),
      ...(query.unread ? { unreadOnly: true } : {}),
      ...(query.tags ? { tags: query.tags } : {}),
    };
    let peers: string[] | undefined;
    const restrict = (allowed: string[]) => {
      peers = peers === undefined ? allowed : peers.filter((p) => allowed.includes(p));
    };
    if (query.userTags || query.groupTags) {
      const [uids, guids] = await Promise.all([
        query.userTags ? this.deps.readModels.findUserIds(appId, { tags: query.userTags }) : Promise.resolve([]),
        query.groupTags ? this.deps.readModels.findGroupIds(appId, { tags: query.groupTags }) : Promise.resolve([]),
      ]);
      restrict([...uids, ...guids]);
    }
    if (query.searchKey !== undefined) {
      const [uids, guids] = await Promise.all([
        this.deps.readModels.findUserIds(appId, { search: query.searchKey }),
        this.deps.readModels.findGroupIds(appId, { search: query.searchKey }),
      ]);
      restrict([...uids, ...guids]);
    }
    return peers === undefined ? filter : { ...filter, peers };
  }

  /** `GET /conversations`: the acting user's list, or with no acting user every conversation of the app. */
  async listConversations(context: RequestContext, query: ListQuery, cursor: ListCursor): Promise<Paged<ConversationResource>> {
    const { appId } = context.actor;
    const options: RenderOptions = { withTags: query.withTags === true, withPeerTags: query.withUserAndGroupTags === true };
    const filter = await this.filterOf(appId, query);
    const page = <T>(result: { total: number; more: boolean; last: CursorKey | undefined }, data: T[]): Paged<T> => ({
      data,
      meta: listMeta(result.total, data.length, query.perPage, cursor, cursor.next(result.last, result.more)),
    });
    if (context.actor.uid === undefined) {
      const result = await this.deps.readModels.listForApp(appId, filter, cursor.position(query.perPage), query.perPage);
      const receivers = result.items.flatMap((doc) => doc.participants ?? []);
      const users = await this.deps.readModels.findUsers(appId, receivers);
      return page(result, result.items.map((doc) => renderSharedConversation(doc, users, options)));
    }
    const me = await this.access.activeUser(appId, context.actor.uid);
    const globalPins = await this.deps.readModels.findGlobalPins(appId);
    const result = await this.deps.readModels.conversations.listForUser(appId, me.uid, globalPins, filter, cursor.page, query.perPage, cursor.after);
    const userPeers = result.items.filter((doc) => doc.conversationType === 'user').map((doc) => doc.peer);
    const users = await this.deps.readModels.findUsers(appId, userPeers);
    return page(
      result,
      result.items.map((doc) => {
        const group = result.groups.get(doc.conversationId);
        return renderConversation(doc, { user: users.get(doc.peer) ?? null, ...(group ? { group } : {}) }, globalPins, options);
      }),
    );
  }
}
