/** One topic per owning service, keyed by stream id so one stream's events stay ordered. */
export const topics = {
  users: 'chat.users.events',
  conversations: 'chat.conversations.events',
  messages: 'chat.messages.events',
  management: 'chat.management.events',
  webhooks: 'chat.webhooks.events',
  notifications: 'chat.notifications.events',
  /** The calls service's own events (none yet: it folds call messages from the messages topic, ADR 0064). */
  calls: 'chat.calls.events',
} as const;

export type Topic = (typeof topics)[keyof typeof topics];

export function deadLetterTopic(consumerGroup: string): string {
  return `${consumerGroup}.dlq`;
}
