/**
 * CometChat's webhook trigger names this platform can raise, with what raises them. Calls have no
 * trigger here because this deployment has no calls service.
 */
export const webhookTriggers = {
  message_sent: 'A message was sent (not group action messages).',
  message_edited: 'A message was edited.',
  message_deleted: 'A message was deleted.',
  message_reaction_added: 'A reaction was added to a message.',
  message_reaction_removed: 'A reaction was removed from a message.',
  message_delivery_receipt: 'A conversation was marked delivered up to a message.',
  message_read_receipt: 'A conversation was marked read up to a message.',
  group_created: 'A group was created.',
  group_updated: 'A group was updated.',
  group_deleted: 'A group was deleted.',
  group_member_added: 'Members were added to a group.',
  group_member_joined: 'A user joined a group.',
  group_member_left: 'A member left a group.',
  group_member_kicked: 'A member was kicked from a group.',
  group_member_banned: 'A member was banned from a group.',
  group_member_unbanned: 'A user was unbanned from a group.',
  group_member_scope_changed: "A member's scope changed.",
  user_blocked: 'A user blocked other users.',
  user_unblocked: 'A user unblocked other users.',
} as const;

export type WebhookTrigger = keyof typeof webhookTriggers;

export function isWebhookTrigger(name: string): name is WebhookTrigger {
  return Object.hasOwn(webhookTriggers, name);
}
