import { ApiError } from '@chat/contracts';
import type { MessageSent } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';

export interface SendMessage {
  type: 'SendMessage';
  message: MessageSent;
  /** Facts gathered from this service's projection of users. */
  senderActive: boolean;
  receiverActive: boolean;
}

export type ConversationLogEvent = DomainEvent<'MessageSent', MessageSent>;

/**
 * One stream per conversation: its messages in send order. Keyed by conversation on Kafka, so every
 * consumer sees a conversation's messages in the order they were appended.
 */
export interface ConversationLogState {
  messageCount: number;
  lastMessageId: string | null;
}

function decide(command: SendMessage, _state: ConversationLogState): ConversationLogEvent[] {
  const { message } = command;
  if (!command.senderActive) {
    throw new ApiError('ERR_UID_NOT_FOUND', `The sender ${message.sender} does not exist or is deactivated.`);
  }
  if (message.receiverType === 'user' && message.sender === message.receiver) {
    throw new ApiError('ERR_MESSAGE_TO_SELF', 'A one-on-one message needs a receiver other than the sender.');
  }
  if (!command.receiverActive) {
    throw new ApiError('ERR_UID_NOT_FOUND', `The receiver ${message.receiver} does not exist or is deactivated.`);
  }
  return [{ type: 'MessageSent', data: message }];
}

export const conversationLogDecider: Decider<ConversationLogState, SendMessage, ConversationLogEvent> = {
  initialState: () => ({ messageCount: 0, lastMessageId: null }),
  decide,
  evolve: (state, event) => ({ messageCount: state.messageCount + 1, lastMessageId: event.data.id }),
  snapshotVersion: 1,
};

export function conversationLogStream(appId: string, conversationId: string): string {
  return `messages:${appId}:${conversationId}`;
}
