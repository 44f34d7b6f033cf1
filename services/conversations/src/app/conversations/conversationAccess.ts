import { ApiError, groupConversationId, isUid, normalizeUid, userConversationId } from '@chat/contracts';
import type { Actor, EventEnvelope, GlobalPin, RequestContext } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner, Decider, DomainEvent } from '@chat/eventsourcing';
import { readWithPatience } from '@chat/mongo';
import type { ConversationReadModels } from '../../adapters/readModels.js';
import { RENDER_ALL, renderConversation } from '../../domain/conversationView.js';
import type { ConversationResource, ConversationType, ConversationGroup, PeerUserDoc, RenderOptions, UserConversation } from '../../domain/conversationView.js';
import type { TimelineDoc } from '../../domain/conversationTimeline.js';
import type { ConversationRef } from '../../domain/pins/userPins.js';
import { isActiveUser } from '../../projections/users.js';
import type { ConversationAsOf } from './conversationAsOf.js';

export interface ConversationsDeps {
  /** The shared runner: appends, publishes and applies to this service's read models. */
  runner: CommandRunner;
  readModels: ConversationReadModels;
  /** Time-travel reads: a conversation folded from the log up to a token or a time (ADR 0033). */
  asOf: ConversationAsOf;
  clock?: () => Date;
}

/** Who the conversation is with: a user (path `/users/{uid}`) or a group (path `/groups/{guid}`). */
export interface Target {
  type: ConversationType;
  id: string;
}

export interface Acknowledgement {
  success: true;
  message?: string;
  /** CometChat spells it with a capital M in the user read/delivered answers. */
  Message?: string;
}

/** Everything an operation on one user's view of one conversation starts from, read in one round. */
export interface ConversationFacts {
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

export function uidNotFound(uid: string): ApiError {
  return new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${uid} does not exist.`);
}

function guidNotFound(guid: string): ApiError {
  return new ApiError('ERR_GUID_NOT_FOUND', `The group with guid ${guid} does not exist.`);
}

const GUID_PATTERN = /^[a-zA-Z0-9_-]{1,100}$/;

/**
 * What every use case on one user's view of a conversation starts from: the acting user's facts of
 * it read in one round, the views rendered from them, and the shared runner.
 */
export class ConversationAccess {
  /** The time every use case here decides with (a test's clock, else the system's). */
  readonly now: () => Date;

  constructor(private readonly deps: ConversationsDeps) {
    this.now = deps.clock ?? (() => new Date());
  }

  /** Runs a command and applies its events to the read models before answering (read-your-writes). */
  async run<S, C, E extends DomainEvent>(
    context: RequestContext,
    decider: Decider<S, C, E>,
    streamId: string,
    command: C,
    now: Date,
  ): Promise<EventEnvelope[]> {
    const result = await this.deps.runner.run({ decider, streamId, command, metadata: commandMetadata(context, now) });
    return result.events;
  }

  async activeUser(appId: string, rawUid: string): Promise<PeerUserDoc> {
    const uid = normalizeUid(rawUid);
    const user = isUid(uid) ? await readWithPatience(async () => {
      const found = await this.deps.readModels.findUser(appId, uid);
      return isActiveUser(found) ? found : null;
    }) : null;
    if (!user) throw uidNotFound(rawUid);
    return user;
  }

  async existingGroup(appId: string, guid: string): Promise<TimelineDoc> {
    const timeline = GUID_PATTERN.test(guid)
      ? await readWithPatience(async () => {
          const found = await this.deps.readModels.conversations.timeline(appId, groupConversationId(guid));
          return found?.group && found.groupDeleted !== true ? found : null;
        })
      : null;
    if (!timeline) throw guidNotFound(guid);
    return timeline;
  }

  async facts(actor: Actor, actingUid: string, target: Target): Promise<ConversationFacts> {
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
  async accessible(actor: Actor, actingUid: string, target: Target): Promise<ConversationFacts & { doc: UserConversation }> {
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

  render(facts: ConversationFacts, doc: UserConversation, options: RenderOptions = RENDER_ALL): ConversationResource {
    return renderConversation(doc, { user: facts.user ?? null, ...(facts.group ? { group: facts.group } : {}) }, facts.globalPins, options);
  }

  async reread(appId: string, facts: ConversationFacts, fallback: UserConversation): Promise<ConversationResource> {
    const updated = await this.deps.readModels.conversations.facts(appId, facts.me, facts.ref.conversationId);
    return this.render(facts, updated?.conversation ?? fallback);
  }

}
