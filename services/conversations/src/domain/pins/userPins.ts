import { ApiError } from '@chat/contracts';
import type { ConversationPinned, ConversationUnpinned } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';

/** CometChat: a user may pin at most five conversations. */
export const MAX_USER_PINS = 5;

export interface ConversationRef {
  uid: string;
  conversationId: string;
  conversationType: 'user' | 'group';
  conversationWith: string;
}

export type UserPinsCommand =
  | { type: 'PinConversation'; conversation: ConversationRef; pinnedAt: number; globallyPinned: boolean }
  | { type: 'UnpinConversation'; conversation: ConversationRef; globallyPinned: boolean };

export type UserPinsEvent =
  | DomainEvent<'ConversationPinned', ConversationPinned>
  | DomainEvent<'ConversationUnpinned', ConversationUnpinned>;

/** One stream per user: the set of conversations that user pinned, by conversation id. */
export interface UserPinsState {
  pinned: Record<string, number>;
}

function refusedForSystemPin(): ApiError {
  return new ApiError(
    'ERR_SYSTEM_PINNED_CONVERSATION',
    'The conversation is pinned for every user by the app; a user can neither pin nor unpin it.',
  );
}

function decide(command: UserPinsCommand, state: UserPinsState): UserPinsEvent[] {
  const { conversation } = command;
  switch (command.type) {
    case 'PinConversation': {
      if (command.globallyPinned) throw refusedForSystemPin();
      if (Object.hasOwn(state.pinned, conversation.conversationId)) return [];
      if (Object.keys(state.pinned).length >= MAX_USER_PINS) {
        throw new ApiError(
          'ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED',
          `A user can pin at most ${MAX_USER_PINS} conversations; unpin one first.`,
        );
      }
      return [{ type: 'ConversationPinned', data: { ...conversation, pinnedAt: command.pinnedAt } }];
    }
    case 'UnpinConversation': {
      // A global pin wins over the user's own: the seed's transition table refuses with 403 and
      // changes nothing, even when the user had also pinned it.
      if (command.globallyPinned) throw refusedForSystemPin();
      if (!Object.hasOwn(state.pinned, conversation.conversationId)) return [];
      return [{ type: 'ConversationUnpinned', data: { ...conversation } }];
    }
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
}

function evolve(state: UserPinsState, event: UserPinsEvent): UserPinsState {
  switch (event.type) {
    case 'ConversationPinned':
      return { pinned: { ...state.pinned, [event.data.conversationId]: event.data.pinnedAt } };
    case 'ConversationUnpinned': {
      const pinned = { ...state.pinned };
      delete pinned[event.data.conversationId];
      return { pinned };
    }
    default: {
      const unreachable: never = event;
      throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

export const userPinsDecider: Decider<UserPinsState, UserPinsCommand, UserPinsEvent> = {
  initialState: () => ({ pinned: {} }),
  decide,
  evolve,
  snapshotVersion: 1,
};

export function userPinsStream(appId: string, uid: string): string {
  return `conversation-pins:${appId}:${uid}`;
}
