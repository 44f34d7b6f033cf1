import { ApiError } from '@chat/contracts';
import type { MessageDeleted, MessageFlagged, MessageReviewed, MessageSent } from '@chat/contracts';

/** Where a message stands in review, as the review queue read model knows it. */
export interface ReviewFacts {
  id: string;
  queue: 'flagged' | 'blocked';
  status: 'pending' | 'approved' | 'disapproved' | 'rejected';
}

/** A user (or the app) flags a visible message for review with one of the app's reasons. */
export interface FlagMessage {
  type: 'FlagMessage';
  /** The flagged message: must exist, be visible to the flagger and not be deleted. */
  target: { id: string; deleted: boolean; category: string } | null;
  reasonKnown: boolean;
  flag: MessageFlagged;
}

/** A moderator decides on a flagged message: `approved` keeps it, `disapproved` deletes it. */
export interface ReviewFlagged {
  type: 'ReviewFlagged';
  entry: ReviewFacts | null;
  review: MessageReviewed;
  deletion?: MessageDeleted;
}

/** A moderator decides on a blocked message: `approved` delivers it as a new message, `rejected` keeps it blocked. */
export interface ReviewBlocked {
  type: 'ReviewBlocked';
  entry: ReviewFacts | null;
  review: MessageReviewed;
  delivered?: MessageSent;
}

export type ReviewCommand = FlagMessage | ReviewFlagged | ReviewBlocked;

export type ReviewEvent =
  | { type: 'MessageFlagged'; data: MessageFlagged }
  | { type: 'MessageReviewed'; data: MessageReviewed }
  | { type: 'MessageDeleted'; data: MessageDeleted }
  | { type: 'MessageSent'; data: MessageSent };

function pendingIn(entry: ReviewFacts | null, queue: ReviewFacts['queue'], id: string): ReviewFacts {
  if (!entry || entry.queue !== queue) throw new ApiError('ERR_MESSAGE_NOT_IN_REVIEW', `The message ${id} is not among the ${queue} messages.`);
  if (entry.status !== 'pending') throw new ApiError('ERR_MESSAGE_ALREADY_REVIEWED', `The message ${id} was already reviewed (${entry.status}).`);
  return entry;
}

export function decideReview(command: ReviewCommand): ReviewEvent[] {
  switch (command.type) {
    case 'FlagMessage': {
      const { target, flag } = command;
      if (!target) throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The message ${flag.id} does not exist.`);
      if (target.deleted) throw new ApiError('ERR_MESSAGE_ACTION_NOT_ALLOWED', `The message ${flag.id} is deleted and cannot be flagged.`);
      if (target.category === 'action') throw new ApiError('ERR_MESSAGE_ACTION_NOT_ALLOWED', 'Action messages cannot be flagged.');
      if (!command.reasonKnown) throw new ApiError('ERR_REASON_NOT_FOUND', `The reason with id ${flag.reasonId ?? ''} does not exist.`);
      return [{ type: 'MessageFlagged', data: flag }];
    }
    case 'ReviewFlagged': {
      pendingIn(command.entry, 'flagged', command.review.id);
      const events: ReviewEvent[] = [{ type: 'MessageReviewed', data: command.review }];
      if (command.review.status === 'disapproved' && command.deletion) events.push({ type: 'MessageDeleted', data: command.deletion });
      return events;
    }
    case 'ReviewBlocked': {
      pendingIn(command.entry, 'blocked', command.review.id);
      const events: ReviewEvent[] = [{ type: 'MessageReviewed', data: command.review }];
      if (command.review.status === 'approved' && command.delivered) events.push({ type: 'MessageSent', data: command.delivered });
      return events;
    }
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
}
