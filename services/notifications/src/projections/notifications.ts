import { notificationDeliveryEventTypes } from '@chat/contracts';
import type { EventOf, NotificationOutcome, NotificationSkipReason, NotificationSubject } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { subjectOf } from '../domain/notification.js';

export const NOTIFICATIONS_COLLECTION = 'notifications';
export const LOGS_COLLECTION = 'notification_logs';

type Handled = EventOf<(typeof notificationDeliveryEventTypes)[number]>;

/** The pending work a restarted process resumes: one document per notification. */
export interface NotificationDocument extends NotificationSubject {
  appId: string;
  payload: Record<string, unknown>;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  queuedAt: number;
  nextAttemptAt?: number;
}

export const notificationsProjection: Projection<NotificationDocument, Handled> = {
  name: NOTIFICATIONS_COLLECTION,
  eventTypes: notificationDeliveryEventTypes,
  documentIds: (event) => (event.type === 'NotificationSkipped' ? [] : [event.data.notificationId]),
  sourceOf: () => 'notification',
  creates: (event) => event.type === 'NotificationQueued',
  evolve: (document, event) => {
    switch (event.type) {
      case 'NotificationQueued':
        return document ?? { ...subjectOf(event.data), appId: event.appId, payload: event.data.payload, status: 'pending', attempts: 0, queuedAt: event.data.queuedAt };
      case 'NotificationAttempted': {
        if (!document) return null;
        const rest = { ...document };
        delete rest.nextAttemptAt;
        const o = event.data.outcome;
        return {
          ...rest,
          status: o === 'delivered' ? 'delivered' : o === 'retrying' ? 'pending' : 'failed',
          attempts: event.data.attempt,
          ...(event.data.nextAttemptAt !== undefined ? { nextAttemptAt: event.data.nextAttemptAt } : {}),
        };
      }
      case 'NotificationSkipped':
        return document;
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  },
};

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

export function logEntryId(notificationId: string, attempt: number | null): string {
  return attempt === null ? notificationId : `${notificationId}-${attempt}`;
}

export const logsProjection: Projection<LogDocument, Handled> = {
  name: LOGS_COLLECTION,
  eventTypes: notificationDeliveryEventTypes,
  documentIds: (event) => {
    switch (event.type) {
      case 'NotificationQueued':
        return [];
      case 'NotificationSkipped':
        return [logEntryId(event.data.notificationId, null)];
      case 'NotificationAttempted':
        return [logEntryId(event.data.notificationId, event.data.attempt)];
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  },
  sourceOf: () => null,
  creates: () => true,
  evolve: (document, event) => {
    if (document) return document;
    if (event.type === 'NotificationSkipped') {
      return { ...subjectOf(event.data), appId: event.appId, notificationTriggered: false, reason: event.data.reason, processingStartedAtMS: event.data.decidedAt, processingEndedAtMS: event.data.decidedAt };
    }
    if (event.type === 'NotificationAttempted') {
      const a = event.data;
      return {
        ...subjectOf(a),
        appId: event.appId,
        notificationTriggered: true,
        attempt: a.attempt,
        outcome: a.outcome,
        success: a.outcome === 'delivered',
        ...(a.statusCode !== undefined ? { statusCode: a.statusCode } : {}),
        ...(a.error !== undefined ? { error: a.error } : {}),
        responsePrefix: a.responsePrefix,
        payload: a.payload,
        processingStartedAtMS: a.startedAt,
        processingEndedAtMS: a.at,
      };
    }
    return null;
  },
};
