import { ApiError } from '@chat/contracts';
import type { MessagePinned, MessageUnpinned } from '@chat/contracts';
import type { MessageActor, MessageFacts } from './conversationLog.js';

/** CometChat's SDK docs: a conversation holds at most 100 pinned messages. */
export const MAX_PINNED_PER_CONVERSATION = 100;

export interface PinMessage {
  type: 'PinMessage';
  target: MessageFacts | null;
  actor: MessageActor;
  pin: MessagePinned;
}

export interface UnpinMessage {
  type: 'UnpinMessage';
  target: MessageFacts | null;
  actor: MessageActor;
  unpin: MessageUnpinned;
}

/**
 * Pinning is a moderation action: in a group only its admins and moderators (the owner is an admin)
 * may pin or unpin; in a one-on-one conversation both participants may; the app always may.
 */
function mayPin(actor: MessageActor, target: MessageFacts): void {
  if (actor.kind === 'app') return;
  if (actor.standing === 'outsider') {
    throw new ApiError('ERR_MESSAGE_NO_ACCESS', `${actor.uid} is not a participant of the conversation of message ${target.id}.`);
  }
  const inGroup = target.conversationId.startsWith('group_');
  if (inGroup && actor.standing !== 'moderator') {
    throw new ApiError('ERR_PERMISSION_DENIED', `Only a group admin or moderator may pin or unpin messages; ${actor.uid} is neither.`);
  }
}

function pinnable(target: MessageFacts | null, id: string): MessageFacts {
  if (!target || target.deleted) throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The message ${id} does not exist.`);
  if (target.category === 'action') throw new ApiError('ERR_MESSAGE_ACTION_NOT_ALLOWED', 'Action messages cannot be pinned.');
  return target;
}

/** Pinning again re-stamps the pin (newest pinner); only a new pin counts against the limit. */
export function decidePin(command: PinMessage, pinned: readonly string[]): MessagePinned[] {
  const target = pinnable(command.target, command.pin.id);
  mayPin(command.actor, target);
  if (!pinned.includes(target.id) && pinned.length >= MAX_PINNED_PER_CONVERSATION) {
    throw new ApiError('ERR_PINNED_MESSAGES_LIMIT_EXCEEDED', `A conversation holds at most ${MAX_PINNED_PER_CONVERSATION} pinned messages; unpin one first.`);
  }
  return [command.pin];
}

/** Unpinning a message that is not pinned changes nothing and is not an error (as for conversations). */
export function decideUnpin(command: UnpinMessage, pinned: readonly string[]): MessageUnpinned[] {
  const target = pinnable(command.target, command.unpin.id);
  mayPin(command.actor, target);
  return pinned.includes(target.id) ? [command.unpin] : [];
}

/** The conversation's pinned ids after an event (oldest pin first). */
export function pinnedAfter(pinned: readonly string[], event: { type: 'pinned' | 'unpinned'; id: string }): string[] {
  const rest = pinned.filter((id) => id !== event.id);
  return event.type === 'pinned' ? [...rest, event.id] : rest;
}
