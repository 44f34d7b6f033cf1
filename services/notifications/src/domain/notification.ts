import type { NotificationAttempted, NotificationOutcome, NotificationQueued, NotificationSkipped, NotificationSubject } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';

export function notificationStreamId(appId: string, notificationId: string): string {
  return `notification:${appId}:${notificationId}`;
}

/** Plain JSON (stored as the commit's snapshot). */
export type NotificationState =
  | { status: 'absent' }
  | {
      status: 'pending' | 'delivered' | 'failed' | 'skipped';
      subject: NotificationSubject;
      payload: Record<string, unknown>;
      attempts: number;
    };

export type NotificationEvent =
  | DomainEvent<'NotificationQueued', NotificationQueued>
  | DomainEvent<'NotificationSkipped', NotificationSkipped>
  | DomainEvent<'NotificationAttempted', NotificationAttempted>;

export interface AttemptRecord {
  /** The number the sender used: an attempt already recorded is not recorded twice. */
  attempt: number;
  outcome: NotificationOutcome;
  statusCode?: number;
  error?: string;
  responsePrefix: string;
  startedAt: number;
  at: number;
  nextAttemptAt?: number;
}

export type NotificationCommand =
  | { type: 'Queue'; queued: NotificationQueued }
  | { type: 'Skip'; skipped: NotificationSkipped }
  | { type: 'RecordAttempt'; attempt: AttemptRecord };

function decide(command: NotificationCommand, state: NotificationState): NotificationEvent[] {
  switch (command.type) {
    // A message event redelivered by Kafka maps to the same notification id: decided once.
    case 'Queue':
      return state.status === 'absent' ? [{ type: 'NotificationQueued', data: command.queued }] : [];
    case 'Skip':
      return state.status === 'absent' ? [{ type: 'NotificationSkipped', data: command.skipped }] : [];
    case 'RecordAttempt': {
      if (state.status !== 'pending' || command.attempt.attempt !== state.attempts + 1) return [];
      return [{ type: 'NotificationAttempted', data: { ...state.subject, payload: state.payload, ...command.attempt } }];
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

/** The subject fields of a queued, skipped or attempted fact. */
export function subjectOf(data: NotificationSubject): NotificationSubject {
  const { notificationId, trigger, messageId, conversationId, messageCategory, messageType, sender, receiver, receiverType, recipient, channel, messageSentAt } = data;
  return {
    notificationId,
    trigger,
    messageId,
    conversationId,
    messageCategory,
    messageType,
    sender,
    receiver,
    receiverType,
    recipient,
    channel,
    messageSentAt,
    ...(data.provider !== undefined ? { provider: data.provider } : {}),
    ...(data.providerId !== undefined ? { providerId: data.providerId } : {}),
    ...(data.tokenType !== undefined ? { tokenType: data.tokenType } : {}),
    ...(data.pushToken !== undefined ? { pushToken: data.pushToken } : {}),
  };
}

function evolve(state: NotificationState, event: NotificationEvent): NotificationState {
  switch (event.type) {
    case 'NotificationQueued':
      return { status: 'pending', subject: subjectOf(event.data), payload: event.data.payload, attempts: 0 };
    case 'NotificationSkipped':
      return { status: 'skipped', subject: subjectOf(event.data), payload: {}, attempts: 0 };
    case 'NotificationAttempted': {
      if (state.status === 'absent') return state;
      const outcome = event.data.outcome;
      return { ...state, status: outcome === 'delivered' ? 'delivered' : outcome === 'retrying' ? 'pending' : 'failed', attempts: event.data.attempt };
    }
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

export const notificationDecider: Decider<NotificationState, NotificationCommand, NotificationEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve,
  decide,
  snapshotVersion: 1,
};
