import { epochSeconds } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import type { MessageIds } from '../adapters/messageIds.js';
import type { Facts, MessagesReadModels } from '../adapters/readModels.js';
import { APP_SYSTEM, appSystemEntity, groupEntityOf, messageView, userEntityOf } from '@chat/contracts';
import type { KnownGroupDoc } from '../projections/groups.js';
import { factsOf } from '../projections/messages.js';
import type { MessageDoc } from '../projections/messages.js';
import type { ApiObject, ConversationLog } from './conversationLog.js';

export interface MessageChangesDeps {
  log: ConversationLog;
  readModels: MessagesReadModels;
  ids: Pick<MessageIds, 'allocate'>;
}

export interface EditInput {
  data: Record<string, unknown>;
  tags?: string[];
}

/** Edits and deletions of a message, each answered with an action message about it. */
export class MessageChanges {
  constructor(private readonly deps: MessageChangesDeps) {}

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
    const [id] = await this.deps.ids.allocate(context.actor.appId, 1);
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

  async edit(context: RequestContext, id: string, input: EditInput): Promise<ApiObject> {
    const { appId } = context.actor;
    const editedAt = epochSeconds(this.deps.log.clock());
    const { facts } = await this.deps.log.onMessage(context, id, ({ doc, actor }) => {
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
    const edited = await this.deps.log.existingMessage(appId, id);
    return this.actionAbout(context, 'edited', edited, facts, editedAt);
  }

  async delete(context: RequestContext, id: string, permanent: boolean): Promise<ApiObject> {
    const { appId } = context.actor;
    const deletedAt = epochSeconds(this.deps.log.clock());
    const deletedBy = context.actor.uid ?? APP_SYSTEM;
    const { doc, facts } = await this.deps.log.onMessage(context, id, ({ doc, actor }) => ({
      type: 'DeleteMessage',
      target: factsOf(doc),
      actor,
      deletion: { id: doc.id, conversationId: doc.conversationId, sender: doc.sender, permanent, deletedBy, deletedAt },
    }));
    const after = permanent ? null : await this.deps.readModels.findMessage(appId, id);
    const shown: MessageDoc = after ?? { ...doc, deletedAt, deletedBy, isDeleted: true, updatedAt: deletedAt };
    return this.actionAbout(context, 'deleted', shown, facts, deletedAt);
  }
}
