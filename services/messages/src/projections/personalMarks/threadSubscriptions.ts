import { threadFollowingEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { APP_SYSTEM } from '@chat/contracts';

/**
 * Whether one user follows one thread, as far as anything said so: an explicit (un)subscribe, or a
 * reply they sent or were mentioned in. No document: only the thread's sender follows it.
 */
export interface ThreadSubscriptionDoc {
  appId: string;
  uid: string;
  parentId: string;
  conversationId: string;
  subscribed: boolean;
  /** When it last changed (the event's `occurredAt`, ms): the newest word wins, whichever stream said it. */
  changedAt: number;
}

type Handled = EventOf<(typeof threadFollowingEventTypes)[number]>;

export function threadSubscriptionId(appId: string, uid: string, parentId: string): string {
  return `thread:${appId}:${uid}:${parentId}`;
}

/** Who a reply subscribes: its sender (unless the app itself) and every user it mentions. */
function subscribedByReply(event: EventOf<'MessageSent'>): string[] {
  const m = event.data;
  if (m.parentId === undefined || m.imported === true) return [];
  const uids = [...(m.sender === APP_SYSTEM ? [] : [m.sender]), ...(m.mentionedUids ?? [])];
  return [...new Set(uids)];
}

/**
 * Two kinds of stream feed one document (the user's subscription stream and the conversation's), so
 * versions cannot order them: the newest `occurredAt` wins instead (applied without positions). Applying
 * an event again changes nothing, whatever came between.
 */
export const threadSubscriptionsProjection: Projection<ThreadSubscriptionDoc, Handled> = {
  name: 'thread_subscriptions',
  eventTypes: threadFollowingEventTypes,
  documentIds(event) {
    if (event.type !== 'MessageSent') return [threadSubscriptionId(event.appId, event.data.uid, event.data.parentId)];
    const parentId = event.data.parentId;
    return parentId === undefined ? [] : subscribedByReply(event).map((uid) => threadSubscriptionId(event.appId, uid, parentId));
  },
  sourceOf: () => null,
  evolve(doc, event, documentId) {
    const at = Date.parse(event.occurredAt);
    if (doc && doc.changedAt > at) return doc;
    if (event.type === 'MessageSent') {
      const m = event.data;
      const uid = subscribedByReply(event).find((u) => threadSubscriptionId(event.appId, u, m.parentId ?? '') === documentId);
      if (uid === undefined || m.parentId === undefined) return doc;
      return { appId: event.appId, uid, parentId: m.parentId, conversationId: m.conversationId, subscribed: true, changedAt: at };
    }
    const { uid, parentId, conversationId } = event.data;
    return { appId: event.appId, uid, parentId, conversationId, subscribed: event.type === 'ThreadSubscribed', changedAt: at };
  },
};
