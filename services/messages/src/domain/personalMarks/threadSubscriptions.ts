import { ApiError } from '@chat/contracts';
import type { ThreadSubscriptionChanged } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import type { MessageActor, MessageFacts } from '../conversationLog.js';

/**
 * Following a thread. A thread is named by its first (parent) message. The user who sent it follows
 * it without asking, and replying in it or being mentioned in a reply subscribes a user again: those
 * come from the conversation's own events (the read model folds both, newest wins), so the stream
 * records only the explicit wishes, and records each one, even a repeat: a repeated unsubscribe after
 * a reply that re-subscribed must count again.
 */
export interface ChangeThreadSubscription {
  type: 'SubscribeThread' | 'UnsubscribeThread';
  target: MessageFacts | null;
  actor: MessageActor;
  change: ThreadSubscriptionChanged;
}

export type ThreadSubscriptionEvent =
  | DomainEvent<'ThreadSubscribed', ThreadSubscriptionChanged>
  | DomainEvent<'ThreadUnsubscribed', ThreadSubscriptionChanged>;

/** The last explicit wish (null: never asked). */
export interface ThreadSubscriptionState {
  subscribed: boolean | null;
}

function threadOf(command: ChangeThreadSubscription): MessageFacts {
  const { target, change, actor } = command;
  // A deleted thread may still be left (so it leaves the inbox), not joined.
  if (!target || (target.deleted && command.type === 'SubscribeThread')) {
    throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The message ${change.parentId} does not exist.`);
  }
  if (actor.kind === 'user' && actor.standing === 'outsider') {
    throw new ApiError('ERR_MESSAGE_NO_ACCESS', `${actor.uid} is not a participant of the conversation of message ${target.id}.`);
  }
  if (target.parentId !== undefined) {
    throw new ApiError('ERR_MESSAGE_THREAD_NESTING', `The message ${target.id} is a reply in the thread of ${target.parentId}; follow that thread instead.`, {
      parentId: target.parentId,
    });
  }
  if (target.category === 'action') throw new ApiError('ERR_MESSAGE_ACTION_NOT_ALLOWED', 'An action message has no thread to follow.');
  return target;
}

export const threadSubscriptionDecider: Decider<ThreadSubscriptionState, ChangeThreadSubscription, ThreadSubscriptionEvent> = {
  initialState: () => ({ subscribed: null }),
  decide: (command) => {
    threadOf(command);
    return [{ type: command.type === 'SubscribeThread' ? 'ThreadSubscribed' : 'ThreadUnsubscribed', data: command.change }];
  },
  evolve: (_state, event) => ({ subscribed: event.type === 'ThreadSubscribed' }),
  snapshotVersion: 1,
};

export function threadSubscriptionStream(appId: string, uid: string, parentId: string): string {
  return `thread-subscription:${appId}:${uid}:${parentId}`;
}
