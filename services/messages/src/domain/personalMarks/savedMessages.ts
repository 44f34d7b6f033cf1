import { ApiError } from '@chat/contracts';
import type { MessageSaved, MessageUnsaved } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import type { MessageActor, MessageFacts } from '../conversationLog.js';

/** CometChat's documented cap (pins-constraints-errors.md): a user keeps at most 100 saved messages. */
export const MAX_SAVED_PER_USER = 100;

export interface SaveMessage {
  type: 'SaveMessage';
  /** The message as stored now (null: unknown or erased). */
  target: MessageFacts | null;
  actor: MessageActor;
  save: MessageSaved;
}

export interface UnsaveMessage {
  type: 'UnsaveMessage';
  target: MessageFacts | null;
  actor: MessageActor;
  unsave: MessageUnsaved;
}

export type SavedMessagesCommand = SaveMessage | UnsaveMessage;
export type SavedMessagesEvent = DomainEvent<'MessageSaved', MessageSaved> | DomainEvent<'MessageUnsaved', MessageUnsaved>;

/** One user's saved message ids, oldest save first: the whole list is needed for the cap. */
export interface SavedMessagesState {
  saved: string[];
}

/** A save is private, so no role decides it: only whether the user can see the message at all. */
function mustSee(actor: MessageActor, target: MessageFacts): void {
  if (actor.kind === 'user' && actor.standing === 'outsider') {
    throw new ApiError('ERR_MESSAGE_NO_ACCESS', `${actor.uid} is not a participant of the conversation of message ${target.id}.`);
  }
}

function decideSave(command: SaveMessage, state: SavedMessagesState): SavedMessagesEvent[] {
  const { target, save } = command;
  if (!target || target.deleted) throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The message ${save.id} does not exist.`);
  mustSee(command.actor, target);
  // Saving again re-stamps the save (the SDKs document it as idempotent); only a new save counts.
  if (!state.saved.includes(save.id) && state.saved.length >= MAX_SAVED_PER_USER) {
    throw new ApiError('ERR_SAVED_MESSAGES_LIMIT_EXCEEDED', `A user saves at most ${MAX_SAVED_PER_USER} messages; unsave one first.`, {
      limit: MAX_SAVED_PER_USER,
    });
  }
  return [{ type: 'MessageSaved', data: save }];
}

/**
 * Unsaving a saved message always works, even once the message is deleted (else a full list could
 * never shrink); unsaving one that is not saved changes nothing, but an unknown or invisible message
 * is still refused as such.
 */
function decideUnsave(command: UnsaveMessage, state: SavedMessagesState): SavedMessagesEvent[] {
  const { target, unsave } = command;
  if (state.saved.includes(unsave.id)) return [{ type: 'MessageUnsaved', data: unsave }];
  if (!target) throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The message ${unsave.id} does not exist.`);
  mustSee(command.actor, target);
  return [];
}

function evolve(state: SavedMessagesState, event: SavedMessagesEvent): SavedMessagesState {
  const rest = state.saved.filter((id) => id !== event.data.id);
  switch (event.type) {
    case 'MessageSaved':
      return { saved: [...rest, event.data.id] };
    case 'MessageUnsaved':
      return { saved: rest };
    default: {
      const unreachable: never = event;
      throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

export const savedMessagesDecider: Decider<SavedMessagesState, SavedMessagesCommand, SavedMessagesEvent> = {
  initialState: () => ({ saved: [] }),
  decide: (command, state) => {
    switch (command.type) {
      case 'SaveMessage':
        return decideSave(command, state);
      case 'UnsaveMessage':
        return decideUnsave(command, state);
      default: {
        const unreachable: never = command;
        throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
      }
    }
  },
  evolve,
  snapshotVersion: 1,
};

export function savedMessagesStream(appId: string, uid: string): string {
  return `saved-messages:${appId}:${uid}`;
}
