import type { EventOf, EventType, KnownEvent, WebhookTrigger } from '@chat/contracts';

export interface TriggerMatch {
  trigger: WebhookTrigger;
  /** The payload's `data`, shaped as CometChat's webhook events carry it. */
  data: Record<string, unknown>;
}

/** The one trigger an event type may raise, and the payload data a given event carries (null: it raises none). */
type Raise = { [T in EventType]?: { trigger: WebhookTrigger; data: (event: EventOf<T>) => Record<string, unknown> | null } };

/**
 * Which CometChat trigger each event type raises, and the payload data it carries. Group actions
 * have their own `group_*` triggers, so the action messages made from them do not also raise
 * `message_sent`. Each type raises one trigger at most, so a record's type header says which
 * (`triggerOfType`) before its value is read.
 */
const raises: Raise = {
  MessageSent: { trigger: 'message_sent', data: (e) => (e.data.category === 'action' ? null : { message: e.data }) },
  MessageEdited: { trigger: 'message_edited', data: (e) => ({ message: e.data }) },
  MessageDeleted: { trigger: 'message_deleted', data: (e) => ({ message: e.data }) },
  MessageReactionAdded: { trigger: 'message_reaction_added', data: (e) => ({ reaction: e.data }) },
  MessageReactionRemoved: { trigger: 'message_reaction_removed', data: (e) => ({ reaction: e.data }) },
  ConversationDelivered: {
    trigger: 'message_delivery_receipt',
    data: (e) => ({ ...receiptOf(e.data), receiptType: 'delivered', deliveredAt: e.data.deliveredAt }),
  },
  ConversationRead: { trigger: 'message_read_receipt', data: (e) => ({ ...receiptOf(e.data), receiptType: 'read', readAt: e.data.readAt }) },
  GroupCreated: { trigger: 'group_created', data: (e) => ({ group: e.data }) },
  GroupUpdated: { trigger: 'group_updated', data: (e) => ({ group: e.data }) },
  GroupDeleted: { trigger: 'group_deleted', data: (e) => ({ group: e.data }) },
  GroupMembersAdded: { trigger: 'group_member_added', data: (e) => e.data },
  GroupMemberJoined: { trigger: 'group_member_joined', data: (e) => e.data },
  GroupMemberLeft: { trigger: 'group_member_left', data: (e) => e.data },
  GroupMemberKicked: { trigger: 'group_member_kicked', data: (e) => e.data },
  GroupMemberBanned: { trigger: 'group_member_banned', data: (e) => e.data },
  GroupMemberUnbanned: { trigger: 'group_member_unbanned', data: (e) => e.data },
  GroupMemberScopeChanged: { trigger: 'group_member_scope_changed', data: (e) => e.data },
  UsersBlocked: { trigger: 'user_blocked', data: (e) => e.data },
  UsersUnblocked: { trigger: 'user_unblocked', data: (e) => e.data },
};

/** The trigger an event raises, if any. */
export function triggerOf(event: KnownEvent): TriggerMatch | null {
  const raise = raises[event.type] as { trigger: WebhookTrigger; data: (e: KnownEvent) => Record<string, unknown> | null } | undefined;
  const data = raise?.data(event);
  return raise && data ? { trigger: raise.trigger, data } : null;
}

/** The trigger events of this type may raise (from a record's type header, before decoding), if any. */
export function triggerOfType(type: string): WebhookTrigger | null {
  return Object.hasOwn(raises, type) ? raises[type as EventType]!.trigger : null;
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
  return webhookBodies(match, appId, region)(webhookId);
}

/**
 * The bodies of one event for each of its webhooks: the trigger's data is written as JSON once (ADR
 * 0090), and each body is the text `JSON.stringify` gives the envelope (same keys, same order).
 */
export function webhookBodies(match: TriggerMatch, appId: string, region: string): (webhookId: string) => string {
  const head = `{"trigger":${JSON.stringify(match.trigger)},"data":${JSON.stringify(match.data)},"appId":${JSON.stringify(appId)},"region":${JSON.stringify(region)},"webhook":`;
  return (webhookId) => `${head}${JSON.stringify(webhookId)}}`;
}
