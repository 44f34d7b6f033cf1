import { ApiError } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import type { MessageActor, MessageFacts } from '../../domain/conversationLog.js';
import { factsOf } from '../../projections/messages.js';
import type { MessageDoc } from '../../projections/messages.js';
import type { MessagesApp } from '../messages.js';

/** The message a user's own command is about, as stored now, and where the user stands in its conversation. */
export interface MessageTarget {
  /** Null: no such message (never was, or erased since). */
  doc: MessageDoc | null;
  facts: MessageFacts | null;
  actor: MessageActor;
}

/**
 * Read on every attempt of a command (the runner rebuilds it after a conflict), so a decision never
 * rests on a message or membership that changed meanwhile. An unknown message is a null target: the
 * decider says what that means (unsaving a saved message that is gone since is still allowed).
 */
export async function messageTarget(messages: MessagesApp, context: RequestContext, id: string): Promise<MessageTarget> {
  try {
    const { doc, actor } = await messages.log.messageContext(context, id);
    return { doc, facts: factsOf(doc), actor };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'ERR_MESSAGE_ID_NOT_FOUND') throw error;
    return { doc: null, facts: null, actor: { kind: 'user', uid: context.actor.uid ?? '', standing: 'outsider' } };
  }
}
