import { ApiError, epochSeconds } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import type { MessagesReadModels } from '../adapters/readModels.js';
import { mustBeAllowed } from '../domain/groupScopePermissions.js';
import { messageView, userEntityOf } from '@chat/contracts';
import { factsOf } from '../projections/messages.js';
import type { ApiObject, ConversationLog } from './conversationLog.js';

/** A message's reactions: the acting user's own, added or removed, and who reacted how. */
export class Reactions {
  constructor(private readonly deps: { log: ConversationLog; readModels: MessagesReadModels }) {}

  /** Adds or removes the acting user's reaction; answers with the message and its reaction summary. */
  async change(context: RequestContext, id: string, reaction: string, change: 'add' | 'remove'): Promise<ApiObject> {
    const { appId } = context.actor;
    const uid = context.actor.uid ?? '';
    const at = epochSeconds(this.deps.log.clock());
    await this.deps.log.onMessage(context, id, ({ doc, actor }) => {
      const about = { id: doc.id, conversationId: doc.conversationId, reaction, uid };
      return change === 'add'
        ? { type: 'ReactToMessage', target: factsOf(doc), actor, reaction: { ...about, reactedAt: at } }
        : { type: 'RemoveReaction', target: factsOf(doc), actor, removal: { ...about, removedAt: at } };
    });
    return messageView(await this.deps.log.existingMessage(appId, id), uid);
  }

  async list(context: RequestContext, id: string, reaction?: string): Promise<ApiObject[]> {
    const { appId } = context.actor;
    const { doc, actor } = await this.deps.log.messageContext(context, id);
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
}
