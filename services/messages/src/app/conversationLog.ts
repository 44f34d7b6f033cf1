import { ApiError, isCallMessageEvent } from '@chat/contracts';
import type { EventEnvelope, RequestContext } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import { readWithPatience } from '@chat/mongo';
import type { Facts, MessagesReadModels } from '../adapters/readModels.js';
import { conversationLogDecider, conversationLogStream } from '../domain/conversationLog.js';
import type { ConversationLogCommand, ConversationLogState, MessageActor } from '../domain/conversationLog.js';
import { deniedActions } from '../domain/groupScopePermissions.js';
import type { MemberAction } from '../domain/groupScopePermissions.js';
import type { MessageDoc } from '../projections/messages.js';
import { scopePermissionValues } from '../projections/scopePermissions.js';
import type { KnownUserDoc } from '../projections/users.js';

export interface ConversationLogDeps {
  /** The shared runner: appends, publishes and applies to this service's read models. */
  runner: CommandRunner;
  readModels: MessagesReadModels;
  clock?: () => Date;
}

/** A message (or list item) as the API shows it. */
export type ApiObject = Record<string, unknown>;

type CommandBuilder = () => Promise<ConversationLogCommand>;

/** An existing message with what a command about it needs to know. */
export interface MessageContext {
  doc: MessageDoc;
  facts: Facts;
  actor: MessageActor;
}

/** What the group's scope permissions deny `uid` (a member; nothing for anyone else). */
export function deniedTo(facts: Facts, uid: string): MemberAction[] {
  const scope = facts.memberships.get(uid)?.scope;
  if (!scope || facts.memberships.get(uid)?.standing !== 'member') return [];
  return deniedActions(scopePermissionValues(facts.scopePermissions)[scope] ?? {}, scope);
}

export function present(user: KnownUserDoc | undefined): user is KnownUserDoc {
  return user !== undefined && !user.deleted && !user.deactivated;
}

/**
 * A conversation's log as every message use case reaches it: commands run on its stream, and the
 * message a command or query is about, read with the acting user's standing in its conversation.
 */
export class ConversationLog {
  readonly clock: () => Date;

  constructor(private readonly deps: ConversationLogDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /**
   * Reads the facts a command needs, waiting briefly while one that must exist is missing: other
   * services' events reach this service asynchronously, so a user or group created a moment ago,
   * or a membership just granted, may not be projected yet. Genuinely unknown ids pay the wait once.
   */
  factsWithPatience(
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
  async run(context: RequestContext, conversationId: string, build: CommandBuilder, batchable = false, prepare?: () => void): Promise<EventEnvelope[]> {
    const { appId } = context.actor;
    const result = await this.deps.runner.run({
      decider: conversationLogDecider,
      streamId: conversationLogStream(appId, conversationId),
      command: build,
      batchable,
      ...(prepare ? { prepare } : {}),
      metadata: commandMetadata(context, this.clock()),
    });
    // A call message answers once it is on Kafka, where the calls service reads it: a calls read after
    // this answer waits for what the topic held then, so it sees the call (ADR 0064). Bounded (2 s):
    // Kafka away must not fail a send that is stored; the outbox publishes it later.
    if (result.events.some(isCallMessageEvent)) await this.deps.runner.published();
    return result.events;
  }

  /** The conversation stream's state, e.g. to skip work a redelivered event already caused. */
  async state(appId: string, conversationId: string): Promise<ConversationLogState> {
    return (await this.deps.runner.load(conversationLogDecider, conversationLogStream(appId, conversationId))).state;
  }

  /** The stored message, refused as unknown when missing. */
  async existingMessage(appId: string, id: string): Promise<MessageDoc> {
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

  /**
   * Runs a command about an existing message. The message and the actor's standing are read on
   * every attempt: an edit that lost a race to a delete sees the deletion and is refused, and a
   * second identical reaction sees the first and adds nothing.
   */
  async onMessage(
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

  /** A message as the caller may see it: on someone's behalf only from a conversation they are in. */
  async visibleMessage(context: RequestContext, id: string): Promise<MessageDoc> {
    const { doc, actor } = await this.messageContext(context, id);
    if (actor.kind === 'user' && actor.standing === 'outsider') {
      throw new ApiError('ERR_MESSAGE_NO_ACCESS', `${actor.uid} is not a participant of the conversation of message ${id}.`);
    }
    return doc;
  }
}
