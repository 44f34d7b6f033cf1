import { ApiError, epochSeconds, groupConversationId, userConversationId } from '@chat/contracts';
import type { EventEnvelope, MessageBlocked, MessageSent, RequestContext } from '@chat/contracts';
import { readWithPatience } from '@chat/mongo';
import type { PagePosition } from '@chat/mongo';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { Facts, MessageCursor, MessageQuery, MessagesReadModels, UnseenBy } from '../adapters/readModels.js';
import type { AppModeration } from '../adapters/moderation/moderationReadModels.js';
import { StaleMessageIdError, conversationLogDecider, conversationLogStream } from '../domain/conversationLog.js';
import type { ConversationLogCommand, ConversationLogState, GroupFacts, MessageActor, UserFacts } from '../domain/conversationLog.js';
import { mentionedUidsOf, withMentionInfo } from '../domain/mentionInfo.js';
import type { MentionInfoWanted } from '../domain/mentionInfo.js';
import { deniedActions, mustBeAllowed } from '../domain/groupScopePermissions.js';
import type { MemberAction } from '../domain/groupScopePermissions.js';
import { scopePermissionValues } from '../projections/scopePermissions.js';
import { APP_SYSTEM, appSystemEntity, groupEntityOf, messageView, userEntityOf } from '../domain/messageView.js';
import type { KnownGroupDoc } from '../projections/groups.js';
import { docOfSent, factsOf } from '../projections/messages.js';
import type { MessageDoc } from '../projections/messages.js';
import type { KnownUserDoc } from '../projections/users.js';

export interface MessagesDeps {
  /** The shared runner: appends, publishes and applies to this service's read models. */
  runner: CommandRunner;
  readModels: MessagesReadModels;
  /** The app's moderation rules, judged on every send (from memory). */
  moderation: { moderationOf(appId: string, awaited?: ReadonlyMap<string, number>): Promise<AppModeration> };
  clock?: () => Date;
}

/** Re-exported for this service's many importers; the one definition is in @chat/contracts. */
export type { RequestContext };

type CommandBuilder = () => Promise<ConversationLogCommand>;

/** An existing message with what a command about it needs to know. */
export interface MessageContext {
  doc: MessageDoc;
  facts: Facts;
  actor: MessageActor;
}

/** A message to send, validated: `data` is the client's own part (no entities yet). */
export interface SendInput {
  /** A uid, or `app_system` when `byApp`. */
  sender: string;
  /** The app sends without `onBehalfOf`: a system message, bound by no membership, block or scope rule. */
  byApp?: boolean;
  receiver: string;
  receiverType: 'user' | 'group';
  /** `action` only from within the service (an agent's failure notice), never from a client. */
  category: 'message' | 'custom' | 'call' | 'action';
  type: string;
  data: Record<string, unknown>;
  tags?: string[];
  muid?: string;
  parentId?: string;
  quotedMessageId?: string;
  /** Uids named in `mentionedUsers` or as `<@uid:…>` in the text. */
  mentionedUids: string[];
}

export interface EditInput {
  data: Record<string, unknown>;
  tags?: string[];
}

export type ApiObject = Record<string, unknown>;

export interface CursorPage {
  items: ApiObject[];
  limit: number;
}

const ID_ATTEMPTS = 5;

function userFacts(user: KnownUserDoc | undefined): UserFacts | null {
  if (!user || user.deleted) return null;
  return { uid: user.uid, active: !user.deactivated, blocked: user.blocked };
}

/** What the group's scope permissions deny `uid` (a member; nothing for anyone else). */
function deniedTo(facts: Facts, uid: string): MemberAction[] {
  const scope = facts.memberships.get(uid)?.scope;
  if (!scope || facts.memberships.get(uid)?.standing !== 'member') return [];
  return deniedActions(scopePermissionValues(facts.scopePermissions)[scope] ?? {}, scope);
}

function present(user: KnownUserDoc | undefined): user is KnownUserDoc {
  return user !== undefined && !user.deleted && !user.deactivated;
}

export class MessagesApp {
  private readonly clock: () => Date;

  constructor(private readonly deps: MessagesDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /**
   * Reads the facts a command needs, waiting briefly while one that must exist is missing: other
   * services' events reach this service asynchronously, so a user or group created a moment ago,
   * or a membership just granted, may not be projected yet. Genuinely unknown ids pay the wait once.
   */
  private factsWithPatience(
    appId: string,
    request: Parameters<MessagesReadModels['findFacts']>[1],
    complete: (facts: Facts) => boolean,
  ): Promise<Facts> {
    return readWithPatience(() => this.deps.readModels.findFacts(appId, request), { until: complete });
  }

  /**
   * Runs a command on the conversation's stream. The builder runs on every attempt, so the facts it
   * reads (the target message, users, membership) are fresh after a conflict.
   */
  async run(context: RequestContext, conversationId: string, build: CommandBuilder, batchable = false): Promise<EventEnvelope[]> {
    const { appId } = context.actor;
    const result = await this.deps.runner.run({
      decider: conversationLogDecider,
      streamId: conversationLogStream(appId, conversationId),
      command: build,
      batchable,
      metadata: commandMetadata(context, this.clock()),
    });
    return result.events;
  }

  /** The conversation stream's state, e.g. to skip work a redelivered event already caused. */
  async conversationLog(appId: string, conversationId: string): Promise<ConversationLogState> {
    return (await this.deps.runner.load(conversationLogDecider, conversationLogStream(appId, conversationId))).state;
  }

  /**
   * Appends messages whose ids are allocated on each attempt. Refusals are found by a dry run on the
   * first facts, so they burn no id; a concurrent send from another writer that got a higher id and
   * was appended first makes the stream refuse the lower one, which then takes a fresh id.
   */
  async appendWithIds(
    context: RequestContext,
    conversationId: string,
    count: number,
    commandFor: (ids: string[], attempt: number) => ConversationLogCommand | Promise<ConversationLogCommand>,
    batchable = false,
  ): Promise<EventEnvelope[]> {
    const dryRun = await commandFor(Array.from({ length: count }, () => '1'), 0);
    conversationLogDecider.decide(dryRun, conversationLogDecider.initialState());
    // The first ids are taken before the command waits for its turn on the stream, so concurrent sends
    // share one counter update; a builder that runs again (a lost race, a stale id) takes fresh ones.
    let reserved: Promise<string[]> | null = this.deps.readModels.allocateMessageIds(context.actor.appId, count);
    // Awaited in the builder; a failure before then must not count as an unhandled rejection.
    reserved.catch(() => undefined);
    let attempts = 0;
    for (let round = 1; ; round++) {
      try {
        return await this.run(context, conversationId, async () => {
          const ids = await (reserved ?? this.deps.readModels.allocateMessageIds(context.actor.appId, count));
          reserved = null;
          attempts += 1;
          return commandFor(ids, attempts);
        }, batchable);
      } catch (error) {
        if (!(error instanceof StaleMessageIdError) || round >= ID_ATTEMPTS) throw error;
      }
    }
  }

  async send(context: RequestContext, input: SendInput): Promise<ApiObject> {
    const { appId } = context.actor;
    const toGroup = input.receiverType === 'group';
    const byApp = input.byApp === true;
    const senders = byApp ? [] : [input.sender];
    const partyUids = toGroup ? senders : [...senders, input.receiver];
    const referenced = [input.parentId, input.quotedMessageId].filter((id): id is string => id !== undefined);
    const conversationId = toGroup ? groupConversationId(input.receiver) : userConversationId(input.sender, input.receiver);
    const sentAt = epochSeconds(this.clock());
    const gather = () =>
      Promise.all([
        this.factsWithPatience(
          appId,
          {
            users: [...partyUids, ...input.mentionedUids],
            ...(toGroup ? { guid: input.receiver, members: senders } : {}),
          },
          (f) =>
            partyUids.every((uid) => f.users.has(uid)) &&
            (!toGroup || (f.group !== null && (byApp || f.memberships.get(input.sender)?.standing === 'member'))),
        ),
        this.deps.readModels.findMessages(appId, referenced),
        this.deps.moderation.moderationOf(appId, context.awaited),
      ]);

    const commandFor = ([facts, messages, moderation]: [Facts, Map<string, MessageDoc>, AppModeration], id: string): ConversationLogCommand => {
      const text = input.category === 'message' ? input.data['text'] : undefined;
      const verdict = typeof text === 'string' && !moderation.policy.isEmpty ? moderation.policy.judge(text) : null;
      const sender = facts.users.get(input.sender);
      const receiverUser = toGroup ? undefined : facts.users.get(input.receiver);
      const mentioned = input.mentionedUids.map((uid) => facts.users.get(uid)).filter(present);
      const senderEntity = byApp ? appSystemEntity() : present(sender) ? userEntityOf(sender) : undefined;
      const entities = senderEntity
        ? {
            sender: { entity: senderEntity, entityType: 'user' },
            receiver: toGroup
              ? facts.group ? { entity: groupEntityOf(facts.group), entityType: 'group' } : undefined
              : present(receiverUser) ? { entity: userEntityOf(receiverUser, conversationId), entityType: 'user' } : undefined,
          }
        : undefined;
      const data: Record<string, unknown> = {
        ...input.data,
        ...(verdict?.masked != null ? { text: verdict.masked } : {}),
        ...(entities?.receiver ? { entities } : {}),
        ...(mentioned.length > 0 ? { mentions: Object.fromEntries(mentioned.map((u) => [u.uid, userEntityOf(u)])) } : {}),
      };
      const message: MessageSent = {
        id,
        conversationId,
        sender: input.sender,
        receiver: input.receiver,
        receiverType: input.receiverType,
        category: input.category,
        type: input.type,
        data,
        ...(input.tags !== undefined ? { tags: input.tags } : {}),
        ...(input.muid !== undefined ? { muid: input.muid } : {}),
        ...(input.parentId !== undefined ? { parentId: input.parentId } : {}),
        ...(input.quotedMessageId !== undefined ? { quotedMessageId: input.quotedMessageId } : {}),
        ...(mentioned.length > 0 ? { mentionedUids: mentioned.map((u) => u.uid) } : {}),
        sentAt,
      };
      const group: GroupFacts | null = facts.group
        ? {
            guid: facts.group.guid,
            senderStanding: facts.memberships.get(input.sender)?.standing ?? 'none',
            denied: deniedTo(facts, input.sender),
          }
        : null;
      const parentDoc = input.parentId !== undefined ? messages.get(input.parentId) : undefined;
      const quotedDoc = input.quotedMessageId !== undefined ? messages.get(input.quotedMessageId) : undefined;
      return {
        type: 'SendMessage',
        message,
        sender: byApp ? 'app' : userFacts(sender),
        receiver: toGroup ? { kind: 'group', group } : { kind: 'user', user: userFacts(receiverUser) },
        ...(input.parentId !== undefined ? { parent: parentDoc ? factsOf(parentDoc) : null } : {}),
        ...(input.quotedMessageId !== undefined ? { quoted: quotedDoc ? factsOf(quotedDoc) : null } : {}),
        ...(verdict && (verdict.block || verdict.flags.length > 0) ? { moderation: { block: verdict.block, flags: verdict.flags } } : {}),
      };
    };

    // The dry run and the first attempt share one read of the facts (every retry reads them again). It
    // starts beside the `muid` look-up: CometChat clients resend with the same `muid` after a lost
    // answer, and the first message is the answer (the read is then dropped).
    const first = gather();
    first.catch(() => undefined);
    const earlier = input.muid !== undefined ? await this.deps.readModels.findBySenderMuid(appId, input.sender, input.muid) : null;
    if (earlier) return messageView(earlier, input.sender);
    // A send reads users and memberships, never the messages before it: concurrent sends to one
    // conversation are decided together and appended as one commit.
    const events = await this.appendWithIds(
      context,
      conversationId,
      1,
      async ([id], attempt) => commandFor(await (attempt <= 1 ? first : gather()), id ?? '0'),
      true,
    );
    const [outcome] = events;
    if (outcome?.type === 'MessageBlocked') {
      const { message, match } = outcome.data as MessageBlocked;
      throw new ApiError('ERR_BLOCKED_BY_EXTENSION', `The message was blocked by the moderation rule ${match.ruleName} (${match.ruleId}); it waits for review.`, {
        messageId: message.id,
        ruleId: match.ruleId,
      });
    }
    const sent = outcome?.data as MessageSent;
    return messageView(docOfSent(appId, sent), input.sender);
  }

  /** The stored message, refused as unknown when missing. */
  private async existingMessage(appId: string, id: string): Promise<MessageDoc> {
    const doc = await this.deps.readModels.findMessage(appId, id);
    if (!doc) throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The message ${id} does not exist.`);
    return doc;
  }

  /** The message, its conversation's facts, and where the acting user stands in that conversation. */
  async messageContext(context: RequestContext, id: string): Promise<MessageContext> {
    const { appId, uid } = context.actor;
    const doc = await this.existingMessage(appId, id);
    const toGroup = doc.receiverType === 'group';
    const users = [doc.sender, ...(toGroup ? [] : [doc.receiver]), ...(uid ? [uid] : [])];
    const facts = await this.deps.readModels.findFacts(appId, {
      users,
      ...(toGroup ? { guid: doc.receiver, members: uid ? [uid] : [] } : {}),
    });
    let actor: MessageActor = { kind: 'app' };
    if (uid) {
      let standing: 'participant' | 'moderator' | 'outsider' = 'outsider';
      if (toGroup) {
        const membership = facts.memberships.get(uid);
        if (membership?.standing === 'member') {
          standing = membership.scope === 'admin' || membership.scope === 'moderator' ? 'moderator' : 'participant';
        }
      } else if (uid === doc.sender || uid === doc.receiver) {
        standing = 'participant';
      }
      actor = { kind: 'user', uid, standing, denied: toGroup ? deniedTo(facts, uid) : [] };
    }
    return { doc, facts, actor };
  }

  /** The acting user's entity (or `app_system`'s) for `entities.by`. */
  private byEntity(facts: Facts, uid: string | undefined) {
    const user = uid ? facts.users.get(uid) : undefined;
    return { entity: user ? userEntityOf(user) : uid ? { uid, name: uid, status: 'offline', role: 'default' } : appSystemEntity(), entityType: 'user' };
  }

  private forEntity(doc: MessageDoc, facts: Facts) {
    if (doc.receiverType === 'group') {
      const group: KnownGroupDoc | null = facts.group;
      return group ? { entity: groupEntityOf(group), entityType: 'group' } : { entity: { guid: doc.receiver }, entityType: 'group' };
    }
    const user = facts.users.get(doc.receiver);
    return { entity: user ? userEntityOf(user, doc.conversationId) : { uid: doc.receiver }, entityType: 'user' };
  }

  /** CometChat answers an edit or delete with an action message about it. */
  private async actionAbout(
    context: RequestContext,
    action: 'edited' | 'deleted',
    target: MessageDoc,
    facts: Facts,
    at: number,
  ): Promise<ApiObject> {
    const [id] = await this.deps.readModels.allocateMessageIds(context.actor.appId, 1);
    const uid = context.actor.uid;
    return {
      id,
      conversationId: target.conversationId,
      sender: uid ?? APP_SYSTEM,
      receiverType: target.receiverType,
      receiver: target.receiver,
      category: 'action',
      type: 'message',
      data: {
        action,
        entities: {
          by: this.byEntity(facts, uid),
          for: this.forEntity(target, facts),
          on: { entity: messageView(target, uid), entityType: 'message' },
        },
      },
      sentAt: at,
      updatedAt: at,
    };
  }

  /**
   * Runs a command about an existing message. The message and the actor's standing are read on
   * every attempt: an edit that lost a race to a delete sees the deletion and is refused, and a
   * second identical reaction sees the first and adds nothing.
   */
  private async onMessage(
    context: RequestContext,
    id: string,
    commandFor: (target: MessageContext) => ConversationLogCommand,
  ): Promise<MessageContext> {
    let latest = await this.messageContext(context, id);
    let attempt = 0;
    await this.run(context, latest.doc.conversationId, async () => {
      attempt += 1;
      if (attempt > 1) latest = await this.messageContext(context, id);
      return commandFor(latest);
    });
    return latest;
  }

  async edit(context: RequestContext, id: string, input: EditInput): Promise<ApiObject> {
    const { appId } = context.actor;
    const editedAt = epochSeconds(this.clock());
    const { facts } = await this.onMessage(context, id, ({ doc, actor }) => {
      const current = JSON.parse(doc.data) as Record<string, unknown>;
      // The given fields replace the old ones; the entities snapshotted at send time stay.
      const data = { ...current, ...input.data };
      return {
        type: 'EditMessage',
        target: factsOf(doc),
        actor,
        edit: {
          id: doc.id,
          conversationId: doc.conversationId,
          data,
          ...(input.tags !== undefined ? { tags: input.tags } : {}),
          editedBy: context.actor.uid ?? APP_SYSTEM,
          editedAt,
        },
      };
    });
    const edited = await this.existingMessage(appId, id);
    return this.actionAbout(context, 'edited', edited, facts, editedAt);
  }

  async delete(context: RequestContext, id: string, permanent: boolean): Promise<ApiObject> {
    const { appId } = context.actor;
    const deletedAt = epochSeconds(this.clock());
    const deletedBy = context.actor.uid ?? APP_SYSTEM;
    const { doc, facts } = await this.onMessage(context, id, ({ doc, actor }) => ({
      type: 'DeleteMessage',
      target: factsOf(doc),
      actor,
      deletion: { id: doc.id, conversationId: doc.conversationId, sender: doc.sender, permanent, deletedBy, deletedAt },
    }));
    const after = permanent ? null : await this.deps.readModels.findMessage(appId, id);
    const shown: MessageDoc = after ?? { ...doc, deletedAt, deletedBy, isDeleted: true, updatedAt: deletedAt };
    return this.actionAbout(context, 'deleted', shown, facts, deletedAt);
  }

  /** Adds or removes the acting user's reaction; answers with the message and its reaction summary. */
  async changeReaction(context: RequestContext, id: string, reaction: string, change: 'add' | 'remove'): Promise<ApiObject> {
    const { appId } = context.actor;
    const uid = context.actor.uid ?? '';
    const at = epochSeconds(this.clock());
    await this.onMessage(context, id, ({ doc, actor }) => {
      const about = { id: doc.id, conversationId: doc.conversationId, reaction, uid };
      return change === 'add'
        ? { type: 'ReactToMessage', target: factsOf(doc), actor, reaction: { ...about, reactedAt: at } }
        : { type: 'RemoveReaction', target: factsOf(doc), actor, removal: { ...about, removedAt: at } };
    });
    return messageView(await this.existingMessage(appId, id), uid);
  }

  /**
   * Pins or unpins a message for everyone in its conversation; answers with the message as it is
   * now (with or without `pinnedAt`/`pinnedBy`). The app acting alone pins as `app_system`.
   */
  async changePin(context: RequestContext, id: string, change: 'pin' | 'unpin'): Promise<ApiObject> {
    const { appId } = context.actor;
    const by = context.actor.uid ?? APP_SYSTEM;
    const at = epochSeconds(this.clock());
    await this.onMessage(context, id, ({ doc, actor }) =>
      change === 'pin'
        ? { type: 'PinMessage', target: factsOf(doc), actor, pin: { id: doc.id, conversationId: doc.conversationId, pinnedBy: by, pinnedAt: at } }
        : { type: 'UnpinMessage', target: factsOf(doc), actor, unpin: { id: doc.id, conversationId: doc.conversationId, unpinnedBy: by, unpinnedAt: at } },
    );
    return messageView(await this.existingMessage(appId, id), context.actor.uid);
  }

  /** A message as the caller may see it: on someone's behalf only from a conversation they are in. */
  private async visibleMessage(context: RequestContext, id: string): Promise<MessageDoc> {
    const { doc, actor } = await this.messageContext(context, id);
    if (actor.kind === 'user' && actor.standing === 'outsider') {
      throw new ApiError('ERR_MESSAGE_NO_ACCESS', `${actor.uid} is not a participant of the conversation of message ${id}.`);
    }
    return doc;
  }

  async get(context: RequestContext, id: string): Promise<ApiObject> {
    return messageView(await this.visibleMessage(context, id), context.actor.uid);
  }

  async listReactions(context: RequestContext, id: string, reaction?: string): Promise<ApiObject[]> {
    const { appId } = context.actor;
    const { doc, actor } = await this.messageContext(context, id);
    if (actor.kind === 'user') {
      if (actor.standing === 'outsider') throw new ApiError('ERR_MESSAGE_NO_ACCESS', `${actor.uid} is not a participant of the conversation of message ${id}.`);
      mustBeAllowed(actor.denied, 'listReactions', actor.uid, doc.receiver);
    }
    const reactions = doc.reactions.filter((r) => reaction === undefined || r.reaction === reaction);
    const { users } = await this.deps.readModels.findFacts(appId, { users: reactions.map((r) => r.uid) });
    return reactions.map((r) => {
      const user = users.get(r.uid);
      return {
        id: r.id,
        messageId: doc.id,
        reaction: r.reaction,
        uid: r.uid,
        reactedAt: r.reactedAt,
        reactedBy: user ? userEntityOf(user) : { uid: r.uid },
      };
    });
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
    const facts = await this.factsWithPatience(appId, { users: [peer] }, (f) => f.users.has(peer));
    if (!present(facts.users.get(peer))) throw new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${peer} does not exist.`);
    if (uid === undefined) return { appId, receiverType: 'user', visibleTo: { uid: peer, guids: [] } };
    return { appId, conversationId: userConversationId(uid, peer) };
  }

  /**
   * Where a thread reply goes: the conversation of its first message, as seen from the replying
   * user (in a one-on-one conversation, to the other participant). Unknown or invisible → as unknown.
   */
  async threadReceiver(context: RequestContext, parentId: string, sender: string): Promise<{ receiver: string; receiverType: 'user' | 'group' }> {
    const parent = await this.existingMessage(context.actor.appId, parentId);
    if (parent.receiverType === 'group') return { receiver: parent.receiver, receiverType: 'group' };
    return { receiver: parent.sender === sender ? parent.receiver : parent.sender, receiverType: 'user' };
  }

  /** A group's conversation; on someone's behalf only for a member. */
  async groupConversationQuery(context: RequestContext, guid: string): Promise<MessageQuery> {
    const { appId, uid } = context.actor;
    const facts = await this.factsWithPatience(appId, { users: [], guid, members: uid ? [uid] : [] }, (f) => f.group !== null);
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
    const parent = await this.visibleMessage(context, parentId);
    return { appId: context.actor.appId, parentId: parent.id };
  }
}
