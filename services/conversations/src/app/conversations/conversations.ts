import { ApiError, epochSeconds, groupConversationId, isUid, normalizeUid, userConversationId } from '@chat/contracts';
import type { Actor, AsOf, EventEnvelope, GlobalPin, RequestContext } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner, Decider, DomainEvent } from '@chat/eventsourcing';
import { readWithPatience } from '@chat/mongo';
import type { ConversationReadModels } from '../../adapters/readModels.js';
import { conversationDeletionDecider, conversationDeletionStream } from '../../domain/conversationDeletion.js';
import type { ConversationAsOf } from './conversationAsOf.js';
import { conversationMarksDecider, conversationMarksStream } from '../../domain/conversationMarks.js';
import type { ConversationMarksCommand } from '../../domain/conversationMarks.js';
import { RENDER_ALL, isGloballyPinned, renderConversation, renderSharedConversation } from '../../domain/conversationView.js';
import type { ConversationResource, ConversationType, ConversationGroup, PeerUserDoc, RenderOptions, UserConversation } from '../../domain/conversationView.js';
import type { TimelineDoc } from '../../domain/conversationTimeline.js';
import type { ImportedReceipt } from '../../domain/importedReceipts.js';
import { globalPinsDecider, globalPinsStream } from '../../domain/pins/globalPins.js';
import type { GlobalPinTarget } from '../../domain/pins/globalPins.js';
import { userPinsDecider, userPinsStream } from '../../domain/pins/userPins.js';
import type { ConversationRef } from '../../domain/pins/userPins.js';
import type { ConversationFilter } from '../../projections/conversationReadModel.js';
import { isActiveUser } from '../../projections/users.js';
import { listMeta } from '@chat/http';
import type { CursorKey, ListCursor, Pagination } from '@chat/http';

export interface ConversationsDeps {
  /** The shared runner: appends, publishes and applies to this service's read models. */
  runner: CommandRunner;
  readModels: ConversationReadModels;
  /** Time-travel reads: a conversation folded from the log up to a token or a time (ADR 0033). */
  asOf: ConversationAsOf;
  clock?: () => Date;
}

export interface GlobalPinView {
  uid?: string;
  guid?: string;
  conversationType: 'user' | 'group';
  pinnedAt: number;
}

export interface Paged<T> {
  data: T[];
  meta: { pagination: Pagination; cursor: { next: string | null } };
}

/** Who the conversation is with: a user (path `/users/{uid}`) or a group (path `/groups/{guid}`). */
export interface Target {
  type: ConversationType;
  id: string;
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

export interface Acknowledgement {
  success: true;
  message?: string;
  /** CometChat spells it with a capital M in the user read/delivered answers. */
  Message?: string;
}

export type Mark = 'read' | 'unread' | 'delivered';

/** Everything an operation on one user's view of one conversation starts from, read in one round. */
interface ConversationFacts {
  me: string;
  ref: ConversationRef;
  /** The acting user's view of it; null when they have none (no message yet, or never a member). */
  doc: UserConversation | null;
  user?: PeerUserDoc;
  group?: ConversationGroup;
  /** The conversation's timeline: what every participant shares. */
  timeline: TimelineDoc | null;
  globalPins: GlobalPin[];
}

function uidNotFound(uid: string): ApiError {
  return new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${uid} does not exist.`);
}

function guidNotFound(guid: string): ApiError {
  return new ApiError('ERR_GUID_NOT_FOUND', `The group with guid ${guid} does not exist.`);
}

const GUID_PATTERN = /^[a-zA-Z0-9_-]{1,100}$/;

export class ConversationsApp {
  private readonly clock: () => Date;

  constructor(private readonly deps: ConversationsDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /** Runs a command and applies its events to the read models before answering (read-your-writes). */
  private async run<S, C, E extends DomainEvent>(
    context: RequestContext,
    decider: Decider<S, C, E>,
    streamId: string,
    command: C,
    now: Date,
  ): Promise<EventEnvelope[]> {
    const result = await this.deps.runner.run({ decider, streamId, command, metadata: commandMetadata(context, now) });
    return result.events;
  }

  private async activeUser(appId: string, rawUid: string): Promise<PeerUserDoc> {
    const uid = normalizeUid(rawUid);
    const user = isUid(uid) ? await readWithPatience(async () => {
      const found = await this.deps.readModels.findUser(appId, uid);
      return isActiveUser(found) ? found : null;
    }) : null;
    if (!user) throw uidNotFound(rawUid);
    return user;
  }

  private async existingGroup(appId: string, guid: string): Promise<TimelineDoc> {
    const timeline = GUID_PATTERN.test(guid)
      ? await readWithPatience(async () => {
          const found = await this.deps.readModels.conversations.timeline(appId, groupConversationId(guid));
          return found?.group && found.groupDeleted !== true ? found : null;
        })
      : null;
    if (!timeline) throw guidNotFound(guid);
    return timeline;
  }

  private async facts(actor: Actor, actingUid: string, target: Target): Promise<ConversationFacts> {
    const { appId } = actor;
    const me = normalizeUid(actingUid);
    if (!isUid(me)) throw uidNotFound(actingUid);
    if (target.type === 'user') {
      const other = normalizeUid(target.id);
      if (!isUid(other)) throw uidNotFound(target.id);
      const conversationId = userConversationId(me, other);
      const [users, found, globalPins] = await Promise.all([
        readWithPatience(async () => {
          const found = await this.deps.readModels.findUsers(appId, [me, other]);
          return isActiveUser(found.get(me)) && isActiveUser(found.get(other)) ? found : null;
        }),
        this.deps.readModels.conversations.facts(appId, me, conversationId),
        this.deps.readModels.findGlobalPins(appId),
      ]);
      if (!users) {
        const found = await this.deps.readModels.findUsers(appId, [me, other]);
        throw uidNotFound(isActiveUser(found.get(me)) ? target.id : actingUid);
      }
      const ref: ConversationRef = { uid: me, conversationId, conversationType: 'user', conversationWith: other };
      const timeline = found?.timeline ?? null;
      return { me, ref, doc: found?.conversation ?? null, user: users.get(other) as PeerUserDoc, timeline, globalPins };
    }
    const conversationId = groupConversationId(target.id);
    const [, timeline, member, globalPins] = await Promise.all([
      this.activeUser(appId, me),
      this.existingGroup(appId, target.id),
      this.deps.readModels.conversations.member(appId, me, conversationId),
      this.deps.readModels.findGlobalPins(appId),
    ]);
    if (!member?.membership) {
      throw new ApiError('ERR_GROUP_NOT_JOINED', `User ${me} is not a member of the group ${target.id}.`);
    }
    const doc = await this.deps.readModels.conversations.userConversation(me, timeline, member);
    const ref: ConversationRef = { uid: me, conversationId, conversationType: 'group', conversationWith: target.id };
    return { me, ref, doc, ...(timeline.group ? { group: timeline.group } : {}), timeline, globalPins };
  }

  /** The facts of a conversation the acting user can see; refuses one that does not exist for them yet. */
  private async accessible(actor: Actor, actingUid: string, target: Target): Promise<ConversationFacts & { doc: UserConversation }> {
    const facts = await this.facts(actor, actingUid, target);
    if (!facts.doc?.listed) {
      throw new ApiError(
        'ERR_CONVERSATION_NOT_ACCESSIBLE',
        target.type === 'user'
          ? `User ${facts.me} has no conversation with ${facts.ref.conversationWith}: no message was exchanged yet.`
          : `User ${facts.me} has no conversation in the group ${target.id} to show yet.`,
      );
    }
    return facts as ConversationFacts & { doc: UserConversation };
  }

  private render(facts: ConversationFacts, doc: UserConversation, options: RenderOptions = RENDER_ALL): ConversationResource {
    return renderConversation(doc, { user: facts.user ?? null, ...(facts.group ? { group: facts.group } : {}) }, facts.globalPins, options);
  }

  private async reread(appId: string, facts: ConversationFacts, fallback: UserConversation): Promise<ConversationResource> {
    const updated = await this.deps.readModels.conversations.facts(appId, facts.me, facts.ref.conversationId);
    return this.render(facts, updated?.conversation ?? fallback);
  }

  /** Whether the conversation's read model has applied what a consistency token names (see `timelineHasApplied`). */
  hasApplied(context: RequestContext, actingUid: string, target: Target, positions: ReadonlyMap<string, number>): Promise<boolean> {
    const conversationId =
      target.type === 'user' ? userConversationId(normalizeUid(actingUid), normalizeUid(target.id)) : groupConversationId(target.id);
    return this.deps.readModels.conversations.timelineHasApplied(context.actor.appId, conversationId, positions);
  }

  async getConversation(context: RequestContext, actingUid: string, target: Target): Promise<ConversationResource> {
    const facts = await this.accessible(context.actor, actingUid, target);
    return this.render(facts, facts.doc);
  }

  /**
   * The conversation as it was at `asOf` (ADR 0033): the live read's access rules (today's standing),
   * the view folded from the log, rendered as the live read renders it (the peer's profile and the
   * app-wide pins are today's).
   */
  async getConversationAsOf(context: RequestContext, actingUid: string, target: Target, asOf: AsOf): Promise<ConversationResource> {
    const facts = await this.facts(context.actor, actingUid, target);
    const past = await this.deps.asOf.conversation(context.actor.appId, facts.ref, asOf);
    if (!past.conversation?.listed) {
      throw new ApiError('ERR_CONVERSATION_NOT_ACCESSIBLE', `User ${facts.me} had no conversation ${facts.ref.conversationId} to show at that point.`);
    }
    return this.render({ ...facts, ...(past.group ? { group: past.group } : {}) }, await this.withoutErased(context.actor.appId, past.conversation));
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

  async updateConversation(context: RequestContext, actingUid: string, target: Target, tags: string[]): Promise<ConversationResource> {
    const facts = await this.accessible(context.actor, actingUid, target);
    const now = this.clock();
    await this.runMarks(context, facts, { type: 'UpdateTags', conversation: facts.ref, tags, now: epochSeconds(now) }, now);
    return this.reread(context.actor.appId, facts, facts.doc);
  }

  private runMarks(context: RequestContext, facts: ConversationFacts, command: ConversationMarksCommand, now: Date) {
    const stream = conversationMarksStream(context.actor.appId, facts.me, facts.ref.conversationId);
    return this.run(context, conversationMarksDecider, stream, command, now);
  }

  /** Deletes the conversation for the acting user: it shows again with the next message. */
  async resetConversation(
    context: RequestContext,
    actingUid: string,
    target: Target,
    deleteMessagesPermanently: boolean,
  ): Promise<Acknowledgement> {
    const facts = await this.accessible(context.actor, actingUid, target);
    const now = this.clock();
    const upTo = Math.max(facts.doc.lastMessageSeq, facts.timeline?.lastMessageSeq ?? 0);
    if (upTo > 0) {
      await this.runMarks(
        context,
        facts,
        { type: 'Reset', conversation: facts.ref, upToMessageId: upTo, deleteMessagesPermanently, now: epochSeconds(now) },
        now,
      );
    }
    return {
      success: true,
      message: `The conversation ${facts.ref.conversationId} has been deleted successfully for UID ${facts.me}.`,
    };
  }

  /** Read and delivered marks up to a message (default: the newest), unread marks after one. */
  async mark(context: RequestContext, actingUid: string, target: Target, mark: Mark, messageId: number | undefined): Promise<Acknowledgement> {
    const facts = await this.facts(context.actor, actingUid, target);
    const newest = facts.timeline?.lastMessageSeq ?? 0;
    if (target.type === 'user' && !facts.doc?.listed && newest === 0) {
      throw new ApiError(
        'ERR_CONVERSATION_NOT_ACCESSIBLE',
        `User ${facts.me} has no conversation with ${facts.ref.conversationWith}: no message was exchanged yet.`,
      );
    }
    if (messageId !== undefined) {
      const known = messageId <= newest && facts.timeline !== null && (await this.deps.readModels.conversations.holdsMessage(facts.timeline, messageId));
      if (!known) {
        throw new ApiError('ERR_BAD_REQUEST', `messageId: ${messageId} is not a message of the conversation ${facts.ref.conversationId}.`, {
          fields: [{ field: 'messageId', problem: 'not a message of this conversation' }],
        });
      }
    }
    const { timeline } = facts;
    // "Mark unread" without a message id: exactly the last message becomes unread again.
    const upTo = messageId ?? (mark === 'unread' && timeline ? await this.deps.readModels.conversations.messageBefore(timeline, newest) : newest);
    const now = this.clock();
    const at = epochSeconds(now);
    if (upTo > 0 || (mark === 'unread' && newest > 0)) {
      const command: ConversationMarksCommand =
        mark === 'read'
          ? { type: 'MarkRead', conversation: facts.ref, messageId: upTo, now: at }
          : mark === 'delivered'
            ? { type: 'MarkDelivered', conversation: facts.ref, messageId: upTo, now: at }
            : { type: 'MarkUnread', conversation: facts.ref, messageId: upTo, now: at };
      await this.runMarks(context, facts, command, now);
    }
    return acknowledgement(target, mark, facts.me, upTo);
  }

  /**
   * The receivers' marks that imported history carries, moved as if each receiver had marked the
   * conversation at that time. All run at once, so the runner appends them as one grouped commit.
   * Marks only move forward: a redelivered import event changes nothing.
   */
  async applyImportedReceipts(receipts: readonly ImportedReceipt[]): Promise<void> {
    const now = this.clock();
    await Promise.all(
      receipts.map((receipt) => {
        const context: RequestContext = {
          actor: { appId: receipt.appId, keyId: receipt.source.actor.keyId, scope: receipt.source.actor.scope as Actor['scope'], uid: receipt.conversation.uid },
          requestId: receipt.source.correlationId,
        };
        const command: ConversationMarksCommand =
          receipt.mark === 'read'
            ? { type: 'MarkRead', conversation: receipt.conversation, messageId: receipt.messageId, now: receipt.at }
            : { type: 'MarkDelivered', conversation: receipt.conversation, messageId: receipt.messageId, now: receipt.at };
        const stream = conversationMarksStream(receipt.appId, receipt.conversation.uid, receipt.conversation.conversationId);
        return this.run(context, conversationMarksDecider, stream, command, now);
      }),
    );
  }

  async pin(context: RequestContext, actingUid: string, target: Target): Promise<ConversationResource> {
    return this.changePin(context, actingUid, target, 'PinConversation');
  }

  async unpin(context: RequestContext, actingUid: string, target: Target): Promise<ConversationResource> {
    return this.changePin(context, actingUid, target, 'UnpinConversation');
  }

  private async changePin(
    context: RequestContext,
    actingUid: string,
    target: Target,
    type: 'PinConversation' | 'UnpinConversation',
  ): Promise<ConversationResource> {
    const facts = await this.accessible(context.actor, actingUid, target);
    const globallyPinned = isGloballyPinned(facts.globalPins, facts.ref.conversationType, facts.ref.conversationWith) !== undefined;
    const now = this.clock();
    const command =
      type === 'PinConversation'
        ? { type, conversation: facts.ref, pinnedAt: epochSeconds(now), globallyPinned }
        : { type, conversation: facts.ref, globallyPinned };
    const events = await this.run(context, userPinsDecider, userPinsStream(context.actor.appId, facts.me), command, now);
    if (events.length === 0) return this.render(facts, facts.doc);
    return this.reread(context.actor.appId, facts, facts.doc);
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
    const facts = await this.facts(context.actor, actingUid, target);
    const upTo = facts.timeline?.lastMessageSeq ?? 0;
    const now = this.clock();
    if (upTo > 0) {
      await this.run(
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
    const me = await this.activeUser(appId, context.actor.uid);
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

  async listGlobalPins(context: RequestContext): Promise<GlobalPinView[]> {
    return (await this.deps.readModels.findGlobalPins(context.actor.appId)).map(toGlobalPinView);
  }

  async replaceGlobalPins(context: RequestContext, targets: GlobalPinTarget[]): Promise<GlobalPinView[]> {
    const { appId } = context.actor;
    const normalized = targets.map((t) =>
      t.conversationType === 'user' ? { ...t, conversationWith: normalizeUid(t.conversationWith) } : t,
    );
    for (const target of normalized) {
      if (target.conversationType === 'group') await this.existingGroup(appId, target.conversationWith);
      else await this.activeUser(appId, target.conversationWith);
    }
    const now = this.clock();
    const command = { type: 'ReplaceGlobalPins' as const, pins: normalized, now: epochSeconds(now) };
    await this.run(context, globalPinsDecider, globalPinsStream(appId), command, now);
    return (await this.deps.readModels.findGlobalPins(appId)).map(toGlobalPinView);
  }
}

function acknowledgement(target: Target, mark: Mark, me: string, upTo: number): Acknowledgement {
  if (mark === 'unread') {
    const from = target.type === 'user' ? `from the user ${target.id}` : `in the group ${target.id}`;
    return { success: true, message: `The messages after the message id ${upTo} ${from} are marked as unread for the user ${me}.` };
  }
  const verb = mark === 'read' ? 'read' : 'delivered';
  if (target.type === 'user') {
    return { success: true, Message: `All the messages from the user are marked as ${verb} for the requesting user.` };
  }
  return { success: true, message: `All the messages in the group are marked as ${verb} for the requesting user.` };
}

function toGlobalPinView(pin: GlobalPin): GlobalPinView {
  return pin.conversationType === 'user'
    ? { uid: pin.conversationWith, conversationType: 'user', pinnedAt: pin.pinnedAt }
    : { guid: pin.conversationWith, conversationType: 'group', pinnedAt: pin.pinnedAt };
}
