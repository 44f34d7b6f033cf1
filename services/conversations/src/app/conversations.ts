import { ApiError, epochSeconds, isUid, normalizeUid, userConversationId } from '@chat/contracts';
import type { Actor, GlobalPin } from '@chat/contracts';
import { handleCommand } from '@chat/eventsourcing';
import { readWithPatience } from '@chat/mongo';
import type { CommandMetadata, CommitStore, EventPublisher } from '@chat/eventsourcing';
import type { Logger } from 'pino';
import type { ConversationReadModels } from '../adapters/readModels.js';
import { isGloballyPinned, renderConversation } from '../domain/conversationView.js';
import type { ConversationResource, PeerUserDoc, UserConversationDoc } from '../domain/conversationView.js';
import { globalPinsDecider, globalPinsStream } from '../domain/globalPins.js';
import type { GlobalPinTarget } from '../domain/globalPins.js';
import { userPinsDecider, userPinsStream } from '../domain/userPins.js';
import type { ConversationRef } from '../domain/userPins.js';

export interface ConversationsDeps {
  store: CommitStore;
  publisher: EventPublisher;
  readModels: ConversationReadModels;
  logger: Logger;
  clock?: () => Date;
}

export interface RequestContext {
  actor: Actor;
  requestId: string;
}

export interface GlobalPinView {
  uid?: string;
  guid?: string;
  conversationType: 'user' | 'group';
  pinnedAt: number;
}

export interface Paged<T> {
  data: T[];
  meta: { pagination: { total: number; count: number; per_page: number; current_page: number; total_pages: number } };
}

function uidNotFound(uid: string): ApiError {
  return new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${uid} does not exist.`);
}

export class ConversationsApp {
  private readonly clock: () => Date;

  constructor(private readonly deps: ConversationsDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  private metadata(context: RequestContext, now: Date): CommandMetadata {
    return { appId: context.actor.appId, actor: context.actor, correlationId: context.requestId, now };
  }

  private async existingUser(appId: string, rawUid: string): Promise<PeerUserDoc> {
    const uid = normalizeUid(rawUid);
    const user = isUid(uid) ? await readWithPatience(() => this.deps.readModels.findUser(appId, uid)) : null;
    if (!user) throw uidNotFound(rawUid);
    return user;
  }

  /**
   * The facts every one-on-one conversation operation starts from, read in one round: both users,
   * the acting user's view of the conversation, and the app-wide pins.
   */
  private async userConversation(actor: Actor, actingUid: string, peerUid: string) {
    const { appId } = actor;
    const me = normalizeUid(actingUid);
    const other = normalizeUid(peerUid);
    if (!isUid(me)) throw uidNotFound(actingUid);
    if (!isUid(other)) throw uidNotFound(peerUid);
    const conversationId = userConversationId(me, other);
    const [users, doc, globalPins] = await Promise.all([
      readWithPatience(async () => {
        const found = await this.deps.readModels.findUsers(appId, [me, other]);
        return found.has(me) && found.has(other) ? found : null;
      }),
      this.deps.readModels.findConversation(appId, me, conversationId),
      this.deps.readModels.findGlobalPins(appId),
    ]);
    if (!users) {
      const found = await this.deps.readModels.findUsers(appId, [me, other]);
      throw uidNotFound(found.has(me) ? peerUid : actingUid);
    }
    const peer = users.get(other) as PeerUserDoc;
    if (!doc?.hasMessages) {
      throw new ApiError(
        'ERR_CONVERSATION_NOT_ACCESSIBLE',
        `User ${me} has no conversation with ${other} yet: no message was exchanged.`,
      );
    }
    const ref: ConversationRef = { uid: me, conversationId, conversationType: 'user', conversationWith: other };
    return { ref, doc, peer, globalPins };
  }

  async getUserConversation(context: RequestContext, actingUid: string, peerUid: string): Promise<ConversationResource> {
    const { doc, peer, globalPins } = await this.userConversation(context.actor, actingUid, peerUid);
    return renderConversation(doc, peer, globalPins);
  }

  async pinUserConversation(context: RequestContext, actingUid: string, peerUid: string): Promise<ConversationResource> {
    return this.changeUserPin(context, actingUid, peerUid, 'PinConversation');
  }

  async unpinUserConversation(context: RequestContext, actingUid: string, peerUid: string): Promise<ConversationResource> {
    return this.changeUserPin(context, actingUid, peerUid, 'UnpinConversation');
  }

  private async changeUserPin(
    context: RequestContext,
    actingUid: string,
    peerUid: string,
    type: 'PinConversation' | 'UnpinConversation',
  ): Promise<ConversationResource> {
    const { ref, doc, peer, globalPins } = await this.userConversation(context.actor, actingUid, peerUid);
    const globallyPinned = isGloballyPinned(globalPins, peer.uid) !== undefined;
    const now = this.clock();
    const command =
      type === 'PinConversation'
        ? { type, conversation: ref, pinnedAt: epochSeconds(now), globallyPinned }
        : { type, conversation: ref, globallyPinned };
    const result = await handleCommand(
      this.deps.store,
      userPinsDecider,
      userPinsStream(context.actor.appId, ref.uid),
      command,
      this.metadata(context, now),
      { publisher: this.deps.publisher, onPublishError: (err) => this.deps.logger.warn({ err }, 'publish deferred to relay') },
    );
    if (result.events.length === 0) return renderConversation(doc, peer, globalPins);
    // Read-your-writes: the same guarded code the Kafka consumer runs, applied before answering.
    for (const event of result.events) await this.deps.readModels.apply(event);
    const updated = await this.deps.readModels.findConversation(context.actor.appId, ref.uid, ref.conversationId);
    return renderConversation(updated ?? doc, peer, globalPins);
  }

  async listUserConversations(
    context: RequestContext,
    actingUid: string,
    page: number,
    perPage: number,
  ): Promise<Paged<ConversationResource>> {
    const { appId } = context.actor;
    const me = await this.existingUser(appId, actingUid);
    const globalPins = await this.deps.readModels.findGlobalPins(appId);
    const result = await this.deps.readModels.listForUser(appId, me.uid, globalPins, page, perPage);
    const peers = await this.deps.readModels.findUsers(appId, result.items.map((doc: UserConversationDoc) => doc.peer));
    return {
      data: result.items.map((doc) => renderConversation(doc, peers.get(doc.peer) ?? null, globalPins)),
      meta: {
        pagination: {
          total: result.total,
          count: result.items.length,
          per_page: perPage,
          current_page: page,
          total_pages: Math.max(1, Math.ceil(result.total / perPage)),
        },
      },
    };
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
      if (target.conversationType === 'group') {
        // Groups arrive with the groups issue; until then no guid exists in any app.
        throw new ApiError('ERR_GUID_NOT_FOUND', `The group with guid ${target.conversationWith} does not exist.`);
      }
      await this.existingUser(appId, target.conversationWith);
    }
    const now = this.clock();
    const result = await handleCommand(
      this.deps.store,
      globalPinsDecider,
      globalPinsStream(appId),
      { type: 'ReplaceGlobalPins', pins: normalized, now: epochSeconds(now) },
      this.metadata(context, now),
      { publisher: this.deps.publisher, onPublishError: (err) => this.deps.logger.warn({ err }, 'publish deferred to relay') },
    );
    for (const event of result.events) await this.deps.readModels.apply(event);
    return result.state.pins.map(toGlobalPinView);
  }
}

function toGlobalPinView(pin: GlobalPin): GlobalPinView {
  return pin.conversationType === 'user'
    ? { uid: pin.conversationWith, conversationType: 'user', pinnedAt: pin.pinnedAt }
    : { guid: pin.conversationWith, conversationType: 'group', pinnedAt: pin.pinnedAt };
}
