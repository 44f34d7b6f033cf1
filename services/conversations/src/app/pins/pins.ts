import { epochSeconds, normalizeUid } from '@chat/contracts';
import type { GlobalPin, RequestContext } from '@chat/contracts';
import { isGloballyPinned } from '../../domain/conversationView.js';
import type { ConversationResource } from '../../domain/conversationView.js';
import { globalPinsDecider, globalPinsStream } from '../../domain/pins/globalPins.js';
import type { GlobalPinTarget } from '../../domain/pins/globalPins.js';
import { userPinsDecider, userPinsStream } from '../../domain/pins/userPins.js';
import type { ConversationAccess, ConversationsDeps, Target } from '../conversations/conversationAccess.js';

export interface GlobalPinView {
  uid?: string;
  guid?: string;
  conversationType: 'user' | 'group';
  pinnedAt: number;
}

/** Pins: the acting user's own (at most five) and the app-wide ones every user sees. */
export class PinsApp {
  constructor(
    private readonly deps: ConversationsDeps,
    private readonly access: ConversationAccess,
  ) {}


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
    const facts = await this.access.accessible(context.actor, actingUid, target);
    const globallyPinned = isGloballyPinned(facts.globalPins, facts.ref.conversationType, facts.ref.conversationWith) !== undefined;
    const now = this.access.now();
    const command =
      type === 'PinConversation'
        ? { type, conversation: facts.ref, pinnedAt: epochSeconds(now), globallyPinned }
        : { type, conversation: facts.ref, globallyPinned };
    const events = await this.access.run(context, userPinsDecider, userPinsStream(context.actor.appId, facts.me), command, now);
    if (events.length === 0) return this.access.render(facts, facts.doc);
    return this.access.reread(context.actor.appId, facts, facts.doc);
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
      if (target.conversationType === 'group') await this.access.existingGroup(appId, target.conversationWith);
      else await this.access.activeUser(appId, target.conversationWith);
    }
    const now = this.access.now();
    const command = { type: 'ReplaceGlobalPins' as const, pins: normalized, now: epochSeconds(now) };
    await this.access.run(context, globalPinsDecider, globalPinsStream(appId), command, now);
    return (await this.deps.readModels.findGlobalPins(appId)).map(toGlobalPinView);
  }
}

function toGlobalPinView(pin: GlobalPin): GlobalPinView {
  return pin.conversationType === 'user'
    ? { uid: pin.conversationWith, conversationType: 'user', pinnedAt: pin.pinnedAt }
    : { guid: pin.conversationWith, conversationType: 'group', pinnedAt: pin.pinnedAt };
}
