import type { KnownEvent, WebhookTrigger } from '@chat/contracts';

export interface TriggerMatch {
  trigger: WebhookTrigger;
  /** The payload's `data`, shaped as CometChat's webhook events carry it. */
  data: Record<string, unknown>;
}

/**
 * The CometChat trigger an event raises, if any, and the payload data it carries. Group actions
 * produce their own `group_*` triggers, so the action messages made from them do not also raise
 * `message_sent`.
 */
export function triggerOf(event: KnownEvent): TriggerMatch | null {
  switch (event.type) {
    case 'MessageSent':
      return event.data.category === 'action' ? null : { trigger: 'message_sent', data: { message: event.data } };
    case 'MessageEdited':
      return { trigger: 'message_edited', data: { message: event.data } };
    case 'MessageDeleted':
      return { trigger: 'message_deleted', data: { message: event.data } };
    case 'MessageReactionAdded':
      return { trigger: 'message_reaction_added', data: { reaction: event.data } };
    case 'MessageReactionRemoved':
      return { trigger: 'message_reaction_removed', data: { reaction: event.data } };
    case 'ConversationDelivered':
      return {
        trigger: 'message_delivery_receipt',
        data: { ...receiptOf(event.data), receiptType: 'delivered', deliveredAt: event.data.deliveredAt },
      };
    case 'ConversationRead':
      return { trigger: 'message_read_receipt', data: { ...receiptOf(event.data), receiptType: 'read', readAt: event.data.readAt } };
    case 'GroupCreated':
      return { trigger: 'group_created', data: { group: event.data } };
    case 'GroupUpdated':
      return { trigger: 'group_updated', data: { group: event.data } };
    case 'GroupDeleted':
      return { trigger: 'group_deleted', data: { group: event.data } };
    case 'GroupMembersAdded':
      return { trigger: 'group_member_added', data: event.data };
    case 'GroupMemberJoined':
      return { trigger: 'group_member_joined', data: event.data };
    case 'GroupMemberLeft':
      return { trigger: 'group_member_left', data: event.data };
    case 'GroupMemberKicked':
      return { trigger: 'group_member_kicked', data: event.data };
    case 'GroupMemberBanned':
      return { trigger: 'group_member_banned', data: event.data };
    case 'GroupMemberUnbanned':
      return { trigger: 'group_member_unbanned', data: event.data };
    case 'GroupMemberScopeChanged':
      return { trigger: 'group_member_scope_changed', data: event.data };
    case 'UsersBlocked':
      return { trigger: 'user_blocked', data: event.data };
    case 'UsersUnblocked':
      return { trigger: 'user_unblocked', data: event.data };
    default:
      return null;
  }
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
