import type { NotificationOutcome, NotificationSkipReason, NotificationSubject } from '@chat/contracts';

/**
 * A notification still to be sent: the pending work a restarted process resumes. Stored when it is
 * decided and deleted once it is delivered or given up (ADR 0043); only a retry changes it.
 */
export interface NotificationDocument extends NotificationSubject {
  appId: string;
  payload: Record<string, unknown>;
  status: 'pending';
  /** Provider calls made so far. */
  attempts: number;
  queuedAt: number;
  nextAttemptAt?: number;
}

/** One entry of `GET /notifications/v1/logs`: a decision not to notify, or one provider call. */
export interface LogDocument extends NotificationSubject {
  appId: string;
  notificationTriggered: boolean;
  reason?: NotificationSkipReason;
  attempt?: number;
  outcome?: NotificationOutcome;
  success?: boolean;
  statusCode?: number;
  error?: string;
  responsePrefix?: string;
  payload?: Record<string, unknown>;
  processingStartedAtMS: number;
  processingEndedAtMS: number;
}

/** The same notification and attempt always get the same entry id, so recording twice stores one. */
export function logEntryId(notificationId: string, attempt: number | null): string {
  return attempt === null ? notificationId : `${notificationId}-${attempt}`;
}

/** The log entry of a decision not to notify. */
export function skipEntry(appId: string, subject: NotificationSubject, reason: NotificationSkipReason, decidedAt: number): LogDocument {
  return { ...subject, appId, notificationTriggered: false, reason, processingStartedAtMS: decidedAt, processingEndedAtMS: decidedAt };
}

/** What one provider call came to. */
export interface AttemptRecord {
  attempt: number;
  outcome: NotificationOutcome;
  statusCode?: number;
  error?: string;
  responsePrefix: string;
  startedAt: number;
  at: number;
  nextAttemptAt?: number;
}

/** The log entry of a provider call. */
export function attemptEntry(notification: NotificationDocument, attempt: AttemptRecord): LogDocument {
  const { payload, appId } = notification;
  return {
    ...subjectOf(notification),
    appId,
    notificationTriggered: true,
    attempt: attempt.attempt,
    outcome: attempt.outcome,
    success: attempt.outcome === 'delivered',
    ...(attempt.statusCode !== undefined ? { statusCode: attempt.statusCode } : {}),
    ...(attempt.error !== undefined ? { error: attempt.error } : {}),
    responsePrefix: attempt.responsePrefix,
    payload,
    processingStartedAtMS: attempt.startedAt,
    processingEndedAtMS: attempt.at,
  };
}

/** The subject fields of a notification (what each log entry repeats, so it stands alone). */
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
