import { groupConversationId } from '@chat/contracts';
import type { MessagesReadModels } from '../adapters/readModels.js';
import type { MessagesApp } from '../app/messages.js';
import { actionMessageCount, actionMessages, planGroupActions } from '../domain/groupActions.js';
import type { GroupEvent } from '../projections/groups.js';

/**
 * Turns group membership changes into `category: action` messages in the group's conversation.
 * Runs after the event is projected (so `entities.for` shows the group as the event left it).
 * Exactly once per group event: the conversation stream records the newest group-event version it
 * turned into messages and its decider ignores anything not newer — a Kafka redelivery or a replay
 * after a restart appends nothing. The check before allocating ids only saves ids; the decider is
 * the guarantee.
 */
export class GroupActionMessages {
  constructor(
    private readonly app: MessagesApp,
    private readonly readModels: MessagesReadModels,
  ) {}

  async handle(event: GroupEvent): Promise<void> {
    const { appId } = event;
    const { guid } = event.data;
    // Imported history gets no action messages: the import brings the group's messages itself.
    if ('imported' in event.data && event.data.imported === true) return;
    const conversationId = groupConversationId(guid);
    if ((await this.app.log.state(appId, conversationId)).lastGroupEventVersion >= event.version) return;

    const group = (await this.readModels.findFacts(appId, { users: [], guid })).group;
    if (!group) return;
    const plan = planGroupActions(event, group.owner);
    if (!plan) return;
    const { users } = await this.readModels.findFacts(appId, { users: [...(plan.actor ? [plan.actor] : []), ...plan.targets] });
    const source = { streamId: event.streamId, version: event.version };
    const context = {
      actor: { appId, keyId: event.actor.keyId, scope: event.actor.scope as 'fullAccess', ...(plan.actor ? { uid: plan.actor } : {}) },
      requestId: event.correlationId,
      causationId: event.id,
    };
    await this.app.sending.appendWithIds(context, conversationId, actionMessageCount(plan), (ids) => ({
      type: 'RecordGroupActions',
      groupEventVersion: event.version,
      messages: actionMessages(plan, source, group, users, ids),
    }));
  }
}
