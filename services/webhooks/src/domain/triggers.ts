import type { EventOf, EventType, KnownEvent, WebhookTrigger } from '@chat/contracts';

export interface TriggerMatch {
  trigger: WebhookTrigger;
  /** The payload's `data`, shaped as CometChat's webhook events carry it. */
  data: Record<string, unknown>;
}

type Raise = { [T in EventType]?: (event: EventOf<T>) => TriggerMatch | null };

/**
 * Which CometChat trigger each event type raises, and the payload data it carries. Group actions
 * have their own `group_*` triggers, so the action messages made from them do not also raise
 * `message_sent`.
 */
const raises: Raise = {
  MessageSent: (e) => (e.data.category === 'action' ? null : { trigger: 'message_sent', data: { message: e.data } }),
  MessageEdited: (e) => ({ trigger: 'message_edited', data: { message: e.data } }),
  MessageDeleted: (e) => ({ trigger: 'message_deleted', data: { message: e.data } }),
  MessageReactionAdded: (e) => ({ trigger: 'message_reaction_added', data: { reaction: e.data } }),
  MessageReactionRemoved: (e) => ({ trigger: 'message_reaction_removed', data: { reaction: e.data } }),
  ConversationDelivered: (e) => ({
    trigger: 'message_delivery_receipt',
    data: { ...receiptOf(e.data), receiptType: 'delivered', deliveredAt: e.data.deliveredAt },
  }),
  ConversationRead: (e) => ({ trigger: 'message_read_receipt', data: { ...receiptOf(e.data), receiptType: 'read', readAt: e.data.readAt } }),
  GroupCreated: (e) => ({ trigger: 'group_created', data: { group: e.data } }),
  GroupUpdated: (e) => ({ trigger: 'group_updated', data: { group: e.data } }),
  GroupDeleted: (e) => ({ trigger: 'group_deleted', data: { group: e.data } }),
  GroupMembersAdded: (e) => ({ trigger: 'group_member_added', data: e.data }),
  GroupMemberJoined: (e) => ({ trigger: 'group_member_joined', data: e.data }),
  GroupMemberLeft: (e) => ({ trigger: 'group_member_left', data: e.data }),
  GroupMemberKicked: (e) => ({ trigger: 'group_member_kicked', data: e.data }),
  GroupMemberBanned: (e) => ({ trigger: 'group_member_banned', data: e.data }),
  GroupMemberUnbanned: (e) => ({ trigger: 'group_member_unbanned', data: e.data }),
  GroupMemberScopeChanged: (e) => ({ trigger: 'group_member_scope_changed', data: e.data }),
  UsersBlocked: (e) => ({ trigger: 'user_blocked', data: e.data }),
  UsersUnblocked: (e) => ({ trigger: 'user_unblocked', data: e.data }),
};

/** The trigger an event raises, if any. */
export function triggerOf(event: KnownEvent): TriggerMatch | null {
  const raise = raises[event.type] as ((e: KnownEvent) => TriggerMatch | null) | undefined;
  return raise ? raise(event) : null;
}

function receiptOf(data: { uid: string; conversationId: string; conversationType: 'user' | 'group'; conversationWith: string; messageId: string }) {
  return {
    messageId: data.messageId,
    conversationId: data.conversationId,
    receiverType: data.conversationType,
    receiver: data.conversationWith,
    uid: data.uid,
  };
}

/** The exact body POSTed: CometChat's webhook envelope around the trigger's data. */
export function webhookBody(match: TriggerMatch, appId: string, region: string, webhookId: string): string {
  return JSON.stringify({ trigger: match.trigger, data: match.data, appId, region, webhook: webhookId });
}
