import { ApiError, epochSeconds } from '@chat/contracts';
import type { MessageSent, RequestContext } from '@chat/contracts';
import type { PagePosition } from '@chat/mongo';
import type { ModerationReadModels, ReviewList } from '../../adapters/moderation/moderationReadModels.js';
import type { MessagesReadModels } from '../../adapters/readModels.js';
import { findSetting } from '../../domain/moderation/moderationSettings.js';
import { APP_SYSTEM, messageView } from '@chat/contracts';
import type { ReviewFacts } from '../../domain/moderation/messageReview.js';
import { docOfSent } from '../../projections/messages.js';
import { blockedMessageOf, flagsOf } from '../../projections/moderation/reviewQueue.js';
import type { ReviewDoc } from '../../projections/moderation/reviewQueue.js';
import type { MessagesApp } from '../messages.js';
import type { ApiObject } from '../conversationLog.js';

export interface MessageReviewDeps {
  messages: MessagesApp;
  readModels: MessagesReadModels;
  moderation: ModerationReadModels;
  clock?: () => Date;
}

/** The first look at a review entry: an unknown one is refused before any stream is touched. */
function inQueue(doc: ReviewDoc | null, queue: ReviewDoc['queue'], id: string): ReviewDoc {
  if (!doc || doc.queue !== queue) throw new ApiError('ERR_MESSAGE_NOT_IN_REVIEW', `The message ${id} is not among the ${queue} messages.`);
  return doc;
}

function reviewFacts(doc: ReviewDoc | null): ReviewFacts | null {
  return doc ? { id: doc.id, queue: doc.queue, status: doc.status } : null;
}

/**
 * The review queues: users flag messages, rules block or flag them on send, moderators decide. Every
 * decision is a command on the message's conversation stream, so it is ordered with the messages
 * it concerns and reaches every consumer (a deletion as a `MessageDeleted`, a delivery as a `MessageSent`).
 */
export class MessageReview {
  private readonly clock: () => Date;

  constructor(private readonly deps: MessageReviewDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /** `POST /messages/{id}/flagged`: on someone's behalf only for a message they can see. */
  async flag(context: RequestContext, id: string, input: { reasonId: string; remark?: string }): Promise<ApiObject> {
    const { appId } = context.actor;
    // Visibility as everywhere else (unknown or invisible: refused the same way as a get).
    const visible = await this.deps.messages.queries.get(context, id);
    const flaggedAt = epochSeconds(this.clock());
    await this.deps.messages.log.run(context, String(visible['conversationId']), async () => {
      const [doc, moderation] = await Promise.all([this.deps.readModels.findMessage(appId, id), this.deps.moderation.moderationOf(appId)]);
      return {
        type: 'FlagMessage',
        target: doc ? { id: doc.id, deleted: doc.isDeleted, category: doc.category } : null,
        reasonKnown: findSetting(moderation.settings, 'reason', input.reasonId) !== undefined,
        flag: {
          id,
          conversationId: String(visible['conversationId']),
          flaggedBy: context.actor.uid ?? APP_SYSTEM,
          reasonId: input.reasonId,
          ...(input.remark !== undefined ? { remark: input.remark } : {}),
          flaggedAt,
        },
      };
    });
    return { success: true, message: `The message ${id} has been flagged for review.` };
  }

  /** `PATCH /moderation/flagged-messages/{id}`: `approved` keeps the message, `disapproved` deletes it. */
  async reviewFlagged(context: RequestContext, id: string, status: 'approved' | 'disapproved'): Promise<ApiObject> {
    const { appId } = context.actor;
    const { conversationId } = inQueue(await this.deps.moderation.findReview(appId, id), 'flagged', id);
    const reviewedAt = epochSeconds(this.clock());
    const reviewedBy = context.actor.uid ?? APP_SYSTEM;
    await this.deps.messages.log.run(context, conversationId, async () => {
      const [entry, message] = await Promise.all([this.deps.moderation.findReview(appId, id), this.deps.readModels.findMessage(appId, id)]);
      return {
        type: 'ReviewFlagged',
        entry: reviewFacts(entry),
        review: { id, conversationId, queue: 'flagged', status, reviewedBy, reviewedAt },
        ...(status === 'disapproved' && message && !message.isDeleted
          ? { deletion: { id, conversationId, sender: message.sender, permanent: false, deletedBy: reviewedBy, deletedAt: reviewedAt } }
          : {}),
      };
    });
    return { success: true, message: `Message with ID ${id} has been reviewed successfully.` };
  }

  /** `PATCH /moderation/blocked-messages/{id}`: `approved` delivers the message (under a new id), `rejected` keeps it blocked. */
  async reviewBlocked(context: RequestContext, id: string, status: 'approved' | 'rejected'): Promise<ApiObject> {
    const { appId } = context.actor;
    const first = inQueue(await this.deps.moderation.findReview(appId, id), 'blocked', id);
    const { conversationId } = first;
    const reviewedAt = epochSeconds(this.clock());
    const reviewedBy = context.actor.uid ?? APP_SYSTEM;
    const commandFor = async (newId?: string) => {
      const entry = await this.deps.moderation.findReview(appId, id);
      const blocked = entry ? blockedMessageOf(entry) : null;
      const delivered: MessageSent | undefined = newId !== undefined && blocked ? { ...blocked, id: newId, sentAt: reviewedAt } : undefined;
      return {
        type: 'ReviewBlocked' as const,
        entry: reviewFacts(entry),
        review: { id, conversationId, queue: 'blocked' as const, status, reviewedBy, reviewedAt, ...(delivered ? { deliveredAs: delivered.id } : {}) },
        ...(delivered ? { delivered } : {}),
      };
    };
    if (status === 'approved' && first.status === 'pending') {
      await this.deps.messages.sending.appendWithIds(context, conversationId, 1, ([newId]) => commandFor(newId));
      return { success: true, message: `Message with ID ${id} has been approved.` };
    }
    await this.deps.messages.log.run(context, conversationId, () => commandFor());
    return { success: true, message: `Message with ID ${id} has been reviewed successfully.` };
  }

  /** A page of one review list, newest first, in CometChat's shapes. */
  async list(context: RequestContext, list: ReviewList, position: PagePosition, perPage: number) {
    const { appId } = context.actor;
    const { total, items, more } = await this.deps.moderation.pageReviews(appId, list, position, perPage);
    const visible = await this.deps.readModels.findMessages(appId, items.filter((doc) => doc.queue === 'flagged').map((doc) => doc.id));
    const shown = items.map((doc) => this.entryView(doc, visible));
    const last = items.at(-1);
    return { total, more, items: shown, last: last ? [last.seq] : undefined };
  }

  private entryView(doc: ReviewDoc, visible: Map<string, ReturnType<typeof docOfSent>>): ApiObject {
    const blocked = blockedMessageOf(doc);
    const stored = visible.get(doc.id);
    const message = blocked ? messageView(docOfSent(doc.appId, blocked)) : stored ? messageView(stored) : { id: doc.id, conversationId: doc.conversationId };
    const review = doc.status === 'pending' ? {} : { reviewedBy: doc.reviewedBy, reviewedAt: doc.reviewedAt, ...(doc.deliveredAs ? { deliveredAs: doc.deliveredAs } : {}) };
    if (doc.queue === 'blocked') {
      const match = doc.match ? (JSON.parse(doc.match) as Record<string, unknown>) : {};
      return {
        ruleId: match['ruleId'],
        ruleName: match['ruleName'],
        revisionId: match['revisionId'],
        condition: match['condition'],
        matched: match['matched'],
        message,
        action: match['action'],
        queue: 'blocked',
        status: doc.status,
        ...review,
        createdAt: doc.createdAt,
        updatedAt: doc.updatedAt,
      };
    }
    return { id: doc.id, message, flags: flagsOf(doc), queue: 'flagged', status: doc.status, ...review, createdAt: doc.createdAt, updatedAt: doc.updatedAt };
  }
}
