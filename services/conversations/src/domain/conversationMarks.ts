import type {
  ConversationDelivered,
  ConversationMarkedUnread,
  ConversationRead,
  ConversationReset,
  ConversationUpdated,
} from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import type { ConversationRef } from './pins/userPins.js';

/**
 * One user's marks on one conversation: read and delivered markers, their tags, and the point up
 * to which they deleted it for themself. Markers are message ids (ids grow per app).
 */
export interface ConversationMarksState {
  readUpTo: number;
  deliveredUpTo: number;
  clearedUpTo: number;
  tags: string[];
}

export type ConversationMarksCommand =
  | { type: 'MarkRead'; conversation: ConversationRef; messageId: number; now: number }
  | { type: 'MarkUnread'; conversation: ConversationRef; messageId: number; now: number }
  | { type: 'MarkDelivered'; conversation: ConversationRef; messageId: number; now: number }
  | { type: 'UpdateTags'; conversation: ConversationRef; tags: string[]; now: number }
  | { type: 'Reset'; conversation: ConversationRef; upToMessageId: number; deleteMessagesPermanently: boolean; now: number };

export type ConversationMarksEvent =
  | DomainEvent<'ConversationRead', ConversationRead>
  | DomainEvent<'ConversationMarkedUnread', ConversationMarkedUnread>
  | DomainEvent<'ConversationDelivered', ConversationDelivered>
  | DomainEvent<'ConversationUpdated', ConversationUpdated>
  | DomainEvent<'ConversationReset', ConversationReset>;

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((tag, i) => tag === b[i]);
}

/** Markers only move in the direction the command names; a command that moves nothing writes nothing. */
function decide(command: ConversationMarksCommand, state: ConversationMarksState): ConversationMarksEvent[] {
  const ref = command.conversation;
  switch (command.type) {
    case 'MarkRead':
      if (command.messageId <= state.readUpTo) return [];
      return [{ type: 'ConversationRead', data: { ...ref, messageId: String(command.messageId), readAt: command.now } }];
    case 'MarkUnread':
      // Only messages after the given one become unread; what is unread already stays so.
      if (command.messageId >= state.readUpTo) return [];
      return [{ type: 'ConversationMarkedUnread', data: { ...ref, messageId: String(command.messageId), markedAt: command.now } }];
    case 'MarkDelivered':
      if (command.messageId <= Math.max(state.deliveredUpTo, state.readUpTo)) return [];
      return [{ type: 'ConversationDelivered', data: { ...ref, messageId: String(command.messageId), deliveredAt: command.now } }];
    case 'UpdateTags':
      if (sameTags(command.tags, state.tags)) return [];
      return [{ type: 'ConversationUpdated', data: { ...ref, tags: command.tags, updatedAt: command.now } }];
    case 'Reset':
      if (command.upToMessageId <= state.clearedUpTo) return [];
      return [
        {
          type: 'ConversationReset',
          data: {
            ...ref,
            upToMessageId: String(command.upToMessageId),
            deleteMessagesPermanently: command.deleteMessagesPermanently,
            resetAt: command.now,
          },
        },
      ];
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
}

function evolve(state: ConversationMarksState, event: ConversationMarksEvent): ConversationMarksState {
  switch (event.type) {
    case 'ConversationRead': {
      const upTo = Number(event.data.messageId);
      return { ...state, readUpTo: upTo, deliveredUpTo: Math.max(state.deliveredUpTo, upTo) };
    }
    case 'ConversationMarkedUnread':
      return { ...state, readUpTo: Number(event.data.messageId) };
    case 'ConversationDelivered':
      return { ...state, deliveredUpTo: Number(event.data.messageId) };
    case 'ConversationUpdated':
      return { ...state, tags: event.data.tags };
    case 'ConversationReset':
      return { ...state, clearedUpTo: Number(event.data.upToMessageId) };
    default: {
      const unreachable: never = event;
      throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

export const conversationMarksDecider: Decider<ConversationMarksState, ConversationMarksCommand, ConversationMarksEvent> = {
  initialState: () => ({ readUpTo: 0, deliveredUpTo: 0, clearedUpTo: 0, tags: [] }),
  decide,
  evolve,
  snapshotVersion: 1,
};

export function conversationMarksStream(appId: string, uid: string, conversationId: string): string {
  return `conversation-user:${appId}:${uid}:${conversationId}`;
}
