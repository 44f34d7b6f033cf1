import type { EventEnvelope, MessageSent } from '@chat/contracts';
import type { ConversationRef } from './pins/userPins.js';

/** How far a receiver had read (or received) a one-on-one conversation, as imported history says. */
export interface ImportedReceipt {
  appId: string;
  /** The receiver's side of the conversation. */
  conversation: ConversationRef;
  mark: 'read' | 'delivered';
  messageId: number;
  /** When, in epoch seconds: the imported `readAt` / `deliveredAt`. */
  at: number;
  /** The event it came from: its actor (the importing key) and correlation. */
  source: EventEnvelope;
}

/**
 * The receipts imported one-on-one messages carry, the furthest per receiver, conversation and mark
 * (a batch of history becomes one mark per conversation, not one per message). A read message was
 * delivered too, so `readAt` alone moves the read mark, which counts as delivered. A group message's
 * times say nothing about which member read it: they stay on the message and move no one's mark.
 */
export function importedReceiptsOf(events: readonly EventEnvelope[]): ImportedReceipt[] {
  const furthest = new Map<string, ImportedReceipt>();
  for (const event of events) {
    if (event.type !== 'MessageSent') continue;
    const message = event.data as MessageSent;
    if (message.imported !== true || message.receiverType !== 'user') continue;
    const conversation: ConversationRef = {
      uid: message.receiver,
      conversationId: message.conversationId,
      conversationType: 'user',
      conversationWith: message.sender,
    };
    const marks: Array<['read' | 'delivered', number | undefined]> = [
      ['read', message.readAt],
      ['delivered', message.readAt === undefined ? message.deliveredAt : undefined],
    ];
    for (const [mark, at] of marks) {
      if (at === undefined) continue;
      const key = `${event.appId}\u0000${message.receiver}\u0000${message.conversationId}\u0000${mark}`;
      const messageId = Number(message.id);
      const known = furthest.get(key);
      if (!known || messageId > known.messageId) furthest.set(key, { appId: event.appId, conversation, mark, messageId, at, source: event });
    }
  }
  return [...furthest.values()];
}
