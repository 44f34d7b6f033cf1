import type { DeliveryAttempted, DeliveryOutcome, DeliveryQueued } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';

/**
 * One delivery of a source event to one webhook, as the delivery log stores it (ADR 0044: the log is
 * the record itself, no event stream per delivery): what was sent, where its retry window stands, and
 * what the receiver last answered.
 */
export interface DeliveryDocument {
  appId: string;
  webhookId: string;
  deliveryId: string;
  trigger: string;
  eventId: string;
  orderKey: string;
  sourceVersion: number;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /**
   * Attempts since it was last (re)queued, and when that round's first attempt was: the retry window.
   * Absent on a document written before ADR 0044 (read as a fresh round).
   */
  roundAttempts?: number;
  roundStartedAt?: number | null;
  lastOutcome?: DeliveryOutcome;
  responseCode?: number;
  error?: string;
  latencyMs?: number;
  responsePrefix?: string;
  occurredAt: number;
  queuedAt: number;
  lastAttemptAt?: number;
  deliveredAt?: number;
  nextAttemptAt?: number;
}

/** What one attempt came to (the attempt number is the document's next). */
export type AttemptRecord = Omit<DeliveryAttempted, 'appId' | 'webhookId' | 'deliveryId' | 'attempt'>;

/** A delivery queued and not yet attempted. */
export function queuedDelivery(queued: DeliveryQueued): DeliveryDocument {
  return {
    appId: queued.appId,
    webhookId: queued.webhookId,
    deliveryId: queued.deliveryId,
    trigger: queued.trigger,
    eventId: queued.sourceEventId,
    orderKey: queued.orderKey,
    sourceVersion: queued.sourceVersion,
    body: queued.body,
    status: 'pending',
    attempts: 0,
    roundAttempts: 0,
    roundStartedAt: null,
    occurredAt: queued.occurredAt,
    queuedAt: queued.queuedAt,
  };
}

/** The attempt number the next attempt gets, and where its retry window stands. */
export function roundOf(document: DeliveryDocument): { attempt: number; attemptInRound: number; roundStartedAt: number | null } {
  return { attempt: document.attempts + 1, attemptInRound: (document.roundAttempts ?? 0) + 1, roundStartedAt: document.roundStartedAt ?? null };
}

/**
 * The delivery after an attempt numbered `attempt`; null when there is nothing to record: it is no
 * longer pending, or that attempt is recorded already (another process got there first).
 */
export function afterAttempt(document: DeliveryDocument, attempt: number, record: AttemptRecord): DeliveryDocument | null {
  if (document.status !== 'pending' || attempt !== document.attempts + 1) return null;
  // The last attempt's facts replace the previous one's.
  const rest = { ...document };
  delete rest.responseCode;
  delete rest.error;
  delete rest.nextAttemptAt;
  return {
    ...rest,
    status: record.outcome === 'delivered' ? 'delivered' : record.outcome === 'retrying' ? 'pending' : 'failed',
    attempts: attempt,
    roundAttempts: (document.roundAttempts ?? 0) + 1,
    roundStartedAt: document.roundStartedAt ?? record.at - record.latencyMs,
    lastOutcome: record.outcome,
    ...(record.statusCode !== undefined ? { responseCode: record.statusCode } : {}),
    ...(record.error !== undefined ? { error: record.error } : {}),
    latencyMs: record.latencyMs,
    responsePrefix: record.responsePrefix,
    lastAttemptAt: record.at,
    ...(record.outcome === 'delivered' ? { deliveredAt: record.at } : {}),
    ...(record.nextAttemptAt !== undefined ? { nextAttemptAt: record.nextAttemptAt } : {}),
  };
}

/** A finished delivery sent again from a new retry window; null for a pending one (already on its way). */
export function requeuedDelivery(document: DeliveryDocument): DeliveryDocument | null {
  if (document.status === 'pending') return null;
  const rest = { ...document };
  delete rest.nextAttemptAt;
  return { ...rest, status: 'pending', roundAttempts: 0, roundStartedAt: null };
}

/**
 * The one attempt other services hear of: a receiver that answered 410 Gone. Management disables the
 * webhook when it reads this `DeliveryAttempted` on the webhooks topic, so it goes through the command
 * runner's outbox (it reaches Kafka even if this process stops right after). One stream per gone
 * attempt: a webhook enabled again and gone again is reported again.
 */
export function goneStreamId(appId: string, deliveryId: string, attempt: number): string {
  return `delivery-gone:${appId}:${deliveryId}:${attempt}`;
}

export type GoneEvent = DomainEvent<'DeliveryAttempted', DeliveryAttempted>;
export type GoneCommand = { type: 'ReportGone'; attempt: DeliveryAttempted };

export const goneDecider: Decider<{ reported: boolean }, GoneCommand, GoneEvent> = {
  initialState: () => ({ reported: false }),
  evolve: () => ({ reported: true }),
  decide: (command, state) => (state.reported ? [] : [{ type: 'DeliveryAttempted', data: command.attempt }]),
  snapshotVersion: 1,
};
