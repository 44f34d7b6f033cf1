import type { ConversationDeleted } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import type { ConversationType } from './conversationView.js';

/** A conversation deleted for every participant, up to a message: later messages show again. */
export interface ConversationDeletionState {
  clearedUpTo: number;
}

export interface DeleteConversation {
  type: 'DeleteConversation';
  conversationId: string;
  conversationType: ConversationType;
  upToMessageId: number;
  deletedBy: string;
  now: number;
}

export type ConversationDeletionEvent = DomainEvent<'ConversationDeleted', ConversationDeleted>;

export const conversationDeletionDecider: Decider<ConversationDeletionState, DeleteConversation, ConversationDeletionEvent> = {
  initialState: () => ({ clearedUpTo: 0 }),
  decide(command, state) {
    if (command.upToMessageId <= state.clearedUpTo) return [];
    return [
      {
        type: 'ConversationDeleted',
        data: {
          conversationId: command.conversationId,
          conversationType: command.conversationType,
          upToMessageId: String(command.upToMessageId),
          deletedBy: command.deletedBy,
          deletedAt: command.now,
        },
      },
    ];
  },
  evolve: (_state, event) => ({ clearedUpTo: Number(event.data.upToMessageId) }),
  snapshotVersion: 1,
};

export function conversationDeletionStream(appId: string, conversationId: string): string {
  return `conversation:${appId}:${conversationId}`;
}
