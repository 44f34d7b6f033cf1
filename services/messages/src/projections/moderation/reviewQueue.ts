import { messageModerationEventTypes } from '@chat/contracts';
import type { EventOf, MessageSent, RuleMatch } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/** One flag on a message: by a user with a reason, or by a rule. */
export interface FlagRecord {
  flaggedBy: string;
  reasonId?: string;
  remark?: string;
  match?: RuleMatch;
  flaggedAt: number;
}

/**
 * A message in review: blocked by a rule (the message itself is kept here, it is in no conversation)
 * or flagged (the message stays in its conversation; the flags are kept here). Listed by queue and
 * status, so those are plain fields; the rest is JSON text (ADR 0006).
 */
export interface ReviewDoc {
  appId: string;
  id: string;
  /** The message id as a number: lists go newest first. */
  seq: number;
  conversationId: string;
  queue: 'flagged' | 'blocked';
  status: 'pending' | 'approved' | 'disapproved' | 'rejected';
  /** Blocked: the message as it would have been sent (JSON). */
  message?: string;
  /** Blocked: the rule that blocked it (JSON). */
  match?: string;
  /** Flagged: every flag (JSON array of `FlagRecord`). */
  flags?: string;
  createdAt: number;
  updatedAt: number;
  reviewedBy?: string;
  reviewedAt?: number;
  deliveredAs?: string;
}

type Handled = EventOf<(typeof messageModerationEventTypes)[number]>;

export function reviewDocId(appId: string, id: string): string {
  return `review:${appId}:${id}`;
}

function idOf(event: Handled): string {
  return event.type === 'MessageBlocked' ? event.data.message.id : event.data.id;
}

export function blockedMessageOf(doc: ReviewDoc): MessageSent | null {
  return doc.message ? (JSON.parse(doc.message) as MessageSent) : null;
}

export function flagsOf(doc: ReviewDoc): FlagRecord[] {
  return doc.flags ? (JSON.parse(doc.flags) as FlagRecord[]) : [];
}

export const reviewQueueProjection: Projection<ReviewDoc, Handled> = {
  name: 'review_queue',
  eventTypes: messageModerationEventTypes,
  documentIds: (event) => [reviewDocId(event.appId, idOf(event))],
  creates: (event) => event.type === 'MessageBlocked',
  evolve(doc, event) {
    switch (event.type) {
      case 'MessageBlocked': {
        const { message, match, blockedAt } = event.data;
        return {
          appId: event.appId,
          id: message.id,
          seq: Number(message.id),
          conversationId: message.conversationId,
          queue: 'blocked',
          status: 'pending',
          message: JSON.stringify(message),
          match: JSON.stringify(match),
          createdAt: blockedAt,
          updatedAt: blockedAt,
        };
      }
      case 'MessageFlagged': {
        const { id, conversationId, flaggedAt, ...flag } = event.data;
        const flags: FlagRecord[] = [...(doc ? flagsOf(doc) : []), { ...flag, flaggedAt }];
        // A flag on a reviewed message opens its review again.
        return {
          appId: event.appId,
          id,
          seq: Number(id),
          conversationId,
          queue: 'flagged',
          status: 'pending',
          flags: JSON.stringify(flags),
          createdAt: doc?.createdAt ?? flaggedAt,
          updatedAt: flaggedAt,
        };
      }
      case 'MessageReviewed': {
        if (!doc) return null;
        const { status, reviewedBy, reviewedAt, deliveredAs } = event.data;
        return { ...doc, status, reviewedBy, reviewedAt, updatedAt: reviewedAt, ...(deliveredAs !== undefined ? { deliveredAs } : {}) };
      }
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
