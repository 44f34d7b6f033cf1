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

/**
 * The log entry of a decision not to notify. Entries are built by assignment, in the order the API
 * lists their fields, not by spreads: one is built per recipient and target of every message, and a
 * spread of a conditional object allocates and copies through the runtime (ADR 0096).
 */
export function skipEntry(appId: string, subject: NotificationSubject, reason: NotificationSkipReason, decidedAt: number): LogDocument {
  const entry = subjectOf(subject) as LogDocument;
  entry.appId = appId;
  entry.notificationTriggered = false;
  entry.reason = reason;
  entry.processingStartedAtMS = decidedAt;
  entry.processingEndedAtMS = decidedAt;
  return entry;
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

/** The log entry of a provider call (fields assigned in the API's order, as `skipEntry`). */
export function attemptEntry(notification: NotificationDocument, attempt: AttemptRecord): LogDocument {
  const entry = subjectOf(notification) as LogDocument;
  entry.appId = notification.appId;
  entry.notificationTriggered = true;
  entry.attempt = attempt.attempt;
  entry.outcome = attempt.outcome;
  entry.success = attempt.outcome === 'delivered';
  if (attempt.statusCode !== undefined) entry.statusCode = attempt.statusCode;
  if (attempt.error !== undefined) entry.error = attempt.error;
  entry.responsePrefix = attempt.responsePrefix;
  entry.payload = notification.payload;
  entry.processingStartedAtMS = attempt.startedAt;
  entry.processingEndedAtMS = attempt.at;
  return entry;
}

/** The log entry of a provider call with its id (the same notification and attempt, the same id). */
export function attemptLogEntry(notification: NotificationDocument, attempt: AttemptRecord): LogDocument & { _id: string } {
  const entry = attemptEntry(notification, attempt) as LogDocument & { _id: string };
  entry._id = logEntryId(notification.notificationId, attempt.attempt);
  return entry;
}

/** The subject fields of a notification (what each log entry repeats, so it stands alone), as a new object. */
export function subjectOf(data: NotificationSubject): NotificationSubject {
  const subject: NotificationSubject = {
    notificationId: data.notificationId,
    trigger: data.trigger,
    messageId: data.messageId,
    conversationId: data.conversationId,
    messageCategory: data.messageCategory,
    messageType: data.messageType,
    sender: data.sender,
    receiver: data.receiver,
    receiverType: data.receiverType,
    recipient: data.recipient,
    channel: data.channel,
    messageSentAt: data.messageSentAt,
  };
  if (data.provider !== undefined) subject.provider = data.provider;
  if (data.providerId !== undefined) subject.providerId = data.providerId;
  if (data.tokenType !== undefined) subject.tokenType = data.tokenType;
  if (data.pushToken !== undefined) subject.pushToken = data.pushToken;
  return subject;
}
