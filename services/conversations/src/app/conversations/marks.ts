import { ApiError, epochSeconds } from '@chat/contracts';
import type { Actor, RequestContext } from '@chat/contracts';
import { readWithPatience } from '@chat/mongo';
import { conversationMarksDecider, conversationMarksStream } from '../../domain/conversationMarks.js';
import type { ConversationMarksCommand } from '../../domain/conversationMarks.js';
import type { ConversationResource } from '../../domain/conversationView.js';
import type { ImportedReceipt } from '../../domain/importedReceipts.js';
import type { Acknowledgement, ConversationAccess, ConversationFacts, ConversationsDeps, Target } from './conversationAccess.js';

export type Mark = 'read' | 'unread' | 'delivered';

/** The acting user's own marks on a conversation: read, delivered, unread, reset, tags; and imported receipts. */
export class MarksApp {
  constructor(
    private readonly deps: ConversationsDeps,
    private readonly access: ConversationAccess,
  ) {}


  async updateConversation(context: RequestContext, actingUid: string, target: Target, tags: string[]): Promise<ConversationResource> {
    const facts = await this.access.accessible(context.actor, actingUid, target);
    const now = this.access.now();
    await this.runMarks(context, facts, { type: 'UpdateTags', conversation: facts.ref, tags, now: epochSeconds(now) }, now);
    return this.access.reread(context.actor.appId, facts, facts.doc);
  }

  private runMarks(context: RequestContext, facts: ConversationFacts, command: ConversationMarksCommand, now: Date) {
    const stream = conversationMarksStream(context.actor.appId, facts.me, facts.ref.conversationId);
    return this.access.run(context, conversationMarksDecider, stream, command, now);
  }

  /** Deletes the conversation for the acting user: it shows again with the next message. */
  async resetConversation(
    context: RequestContext,
    actingUid: string,
    target: Target,
    deleteMessagesPermanently: boolean,
  ): Promise<Acknowledgement> {
    const facts = await this.access.accessible(context.actor, actingUid, target);
    const now = this.access.now();
    const upTo = Math.max(facts.doc.lastMessageSeq, facts.timeline?.lastMessageSeq ?? 0);
    if (upTo > 0) {
      await this.runMarks(
        context,
        facts,
        { type: 'Reset', conversation: facts.ref, upToMessageId: upTo, deleteMessagesPermanently, now: epochSeconds(now) },
        now,
      );
    }
    return {
      success: true,
      message: `The conversation ${facts.ref.conversationId} has been deleted successfully for UID ${facts.me}.`,
    };
  }

  /** Read and delivered marks up to a message (default: the newest), unread marks after one. */
  async mark(context: RequestContext, actingUid: string, target: Target, mark: Mark, messageId: number | undefined): Promise<Acknowledgement> {
    // A client marks what its realtime frame carried, pushed straight from the topic: this service's
    // projection of that message may be a moment behind it (on another replica, always). A message id
    // past the newest known is waited for, as every cross-service look-up is (ADR 0004); an id that
    // never comes pays the wait once and is refused below.
    const facts = await readWithPatience(() => this.access.facts(context.actor, actingUid, target), {
      until: (read) => messageId === undefined || messageId <= (read.timeline?.lastMessageSeq ?? 0),
    });
    const newest = facts.timeline?.lastMessageSeq ?? 0;
    if (target.type === 'user' && !facts.doc?.listed && newest === 0) {
      throw new ApiError(
        'ERR_CONVERSATION_NOT_ACCESSIBLE',
        `User ${facts.me} has no conversation with ${facts.ref.conversationWith}: no message was exchanged yet.`,
      );
    }
    if (messageId !== undefined) {
      const known = messageId <= newest && facts.timeline !== null && (await this.deps.readModels.conversations.holdsMessage(facts.timeline, messageId));
      if (!known) {
        throw new ApiError('ERR_BAD_REQUEST', `messageId: ${messageId} is not a message of the conversation ${facts.ref.conversationId}.`, {
          fields: [{ field: 'messageId', problem: 'not a message of this conversation' }],
        });
      }
    }
    const { timeline } = facts;
    // "Mark unread" without a message id: exactly the last message becomes unread again.
    const upTo = messageId ?? (mark === 'unread' && timeline ? await this.deps.readModels.conversations.messageBefore(timeline, newest) : newest);
    const now = this.access.now();
    const at = epochSeconds(now);
    if (upTo > 0 || (mark === 'unread' && newest > 0)) {
      const command: ConversationMarksCommand =
        mark === 'read'
          ? { type: 'MarkRead', conversation: facts.ref, messageId: upTo, now: at }
          : mark === 'delivered'
            ? { type: 'MarkDelivered', conversation: facts.ref, messageId: upTo, now: at }
            : { type: 'MarkUnread', conversation: facts.ref, messageId: upTo, now: at };
      await this.runMarks(context, facts, command, now);
    }
    return acknowledgement(target, mark, facts.me, upTo);
  }

  /**
   * The receivers' marks that imported history carries, moved as if each receiver had marked the
   * conversation at that time. All run at once, so the runner appends them as one grouped commit.
   * Marks only move forward: a redelivered import event changes nothing.
   */
  async applyImportedReceipts(receipts: readonly ImportedReceipt[]): Promise<void> {
    const now = this.access.now();
    await Promise.all(
      receipts.map((receipt) => {
        const context: RequestContext = {
          actor: { appId: receipt.appId, keyId: receipt.source.actor.keyId, scope: receipt.source.actor.scope as Actor['scope'], uid: receipt.conversation.uid },
          requestId: receipt.source.correlationId,
        };
        const command: ConversationMarksCommand =
          receipt.mark === 'read'
            ? { type: 'MarkRead', conversation: receipt.conversation, messageId: receipt.messageId, now: receipt.at }
            : { type: 'MarkDelivered', conversation: receipt.conversation, messageId: receipt.messageId, now: receipt.at };
        const stream = conversationMarksStream(receipt.appId, receipt.conversation.uid, receipt.conversation.conversationId);
        return this.access.run(context, conversationMarksDecider, stream, command, now);
      }),
    );
  }
}

function acknowledgement(target: Target, mark: Mark, me: string, upTo: number): Acknowledgement {
  if (mark === 'unread') {
    const from = target.type === 'user' ? `from the user ${target.id}` : `in the group ${target.id}`;
    return { success: true, message: `The messages after the message id ${upTo} ${from} are marked as unread for the user ${me}.` };
  }
  const verb = mark === 'read' ? 'read' : 'delivered';
  if (target.type === 'user') {
    return { success: true, Message: `All the messages from the user are marked as ${verb} for the requesting user.` };
  }
  return { success: true, message: `All the messages in the group are marked as ${verb} for the requesting user.` };
}
