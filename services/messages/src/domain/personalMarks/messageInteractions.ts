import { ApiError } from '@chat/contracts';
import type { MessageInteracted } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import type { MessageActor, MessageFacts } from '../conversationLog.js';

/** Ours: distinct elements one user marks on one message, so the stream's state stays small. */
export const MAX_INTERACTED_ELEMENTS = 100;

/**
 * Marks elements of an interactive message (a form's buttons, a card's actions) as used by the acting
 * user. Marking an element again changes nothing (no event), so a client may retry freely.
 */
export interface MarkInteracted {
  type: 'MarkInteracted';
  target: MessageFacts | null;
  actor: MessageActor;
  interaction: MessageInteracted;
}

export type MessageInteractionEvent = DomainEvent<'MessageInteracted', MessageInteracted>;

export interface MessageInteractionState {
  elementIds: string[];
}

function decide(command: MarkInteracted, state: MessageInteractionState): MessageInteractionEvent[] {
  const { target, actor, interaction } = command;
  if (!target || target.deleted) throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The message ${interaction.id} does not exist.`);
  if (actor.kind === 'user' && actor.standing === 'outsider') {
    throw new ApiError('ERR_MESSAGE_NO_ACCESS', `${actor.uid} is not a participant of the conversation of message ${target.id}.`);
  }
  if (target.category === 'action') throw new ApiError('ERR_MESSAGE_ACTION_NOT_ALLOWED', 'Action messages have no elements to interact with.');
  const fresh = [...new Set(interaction.elementIds)].filter((id) => !state.elementIds.includes(id));
  if (fresh.length === 0) return [];
  if (state.elementIds.length + fresh.length > MAX_INTERACTED_ELEMENTS) {
    throw new ApiError('ERR_BAD_REQUEST', `interactions: a user marks at most ${MAX_INTERACTED_ELEMENTS} elements of one message.`, {
      fields: [{ field: 'interactions', problem: `more than ${MAX_INTERACTED_ELEMENTS} elements` }],
    });
  }
  return [{ type: 'MessageInteracted', data: { ...interaction, elementIds: fresh } }];
}

export const messageInteractionDecider: Decider<MessageInteractionState, MarkInteracted, MessageInteractionEvent> = {
  initialState: () => ({ elementIds: [] }),
  decide,
  evolve: (state, event) => ({ elementIds: [...state.elementIds, ...event.data.elementIds.filter((id) => !state.elementIds.includes(id))] }),
  snapshotVersion: 1,
};

export function messageInteractionStream(appId: string, uid: string, messageId: string): string {
  return `message-interactions:${appId}:${uid}:${messageId}`;
}
