import { epochSeconds } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import { APP_SYSTEM, messageView } from '@chat/contracts';
import { factsOf } from '../projections/messages.js';
import type { ApiObject, ConversationLog } from './conversationLog.js';

/** Messages pinned for everyone in their conversation (domain/messagePins.ts holds the rules). */
export class Pins {
  constructor(private readonly deps: { log: ConversationLog }) {}

  /**
   * Pins or unpins a message for everyone in its conversation; answers with the message as it is
   * now (with or without `pinnedAt`/`pinnedBy`). The app acting alone pins as `app_system`.
   */
  async change(context: RequestContext, id: string, change: 'pin' | 'unpin'): Promise<ApiObject> {
    const { appId } = context.actor;
    const by = context.actor.uid ?? APP_SYSTEM;
    const at = epochSeconds(this.deps.log.clock());
    await this.deps.log.onMessage(context, id, ({ doc, actor }) =>
      change === 'pin'
        ? { type: 'PinMessage', target: factsOf(doc), actor, pin: { id: doc.id, conversationId: doc.conversationId, pinnedBy: by, pinnedAt: at } }
        : { type: 'UnpinMessage', target: factsOf(doc), actor, unpin: { id: doc.id, conversationId: doc.conversationId, unpinnedBy: by, unpinnedAt: at } },
    );
    return messageView(await this.deps.log.existingMessage(appId, id), context.actor.uid);
  }
}
