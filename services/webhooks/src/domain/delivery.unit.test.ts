import { specFor } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { afterAttempt, goneDecider, queuedDelivery, requeuedDelivery, roundOf } from './delivery.js';
import type { AttemptRecord } from './delivery.js';

const queued = queuedDelivery({
  appId: 'a1',
  webhookId: 'w1',
  deliveryId: 'd1',
  trigger: 'message_sent',
  sourceEventId: 'e1',
  orderKey: 'messages:a1:x_user_y',
  sourceVersion: 3,
  body: '{}',
  occurredAt: 1_000,
  queuedAt: 1_010,
});
const attempt = (outcome: AttemptRecord['outcome'], at: number, extra: Partial<AttemptRecord> = {}): AttemptRecord => ({
  outcome,
  statusCode: outcome === 'delivered' ? 200 : 500,
  latencyMs: 5,
  responsePrefix: outcome === 'delivered' ? 'ok' : 'oops',
  at,
  ...extra,
});

describe('a delivery in the log', () => {
  it('starts pending, unattempted, with no retry window yet', () => {
    expect(queued).toMatchObject({ status: 'pending', attempts: 0, roundAttempts: 0, roundStartedAt: null, eventId: 'e1', queuedAt: 1_010 });
    expect(roundOf(queued)).toEqual({ attempt: 1, attemptInRound: 1, roundStartedAt: null });
  });

  it('records each attempt once, in sequence, the last one\'s facts replacing the previous', () => {
    const first = afterAttempt(queued, 1, attempt('retrying', 2_000, { nextAttemptAt: 7_000, error: 'HTTP 500' }))!;
    expect(first).toMatchObject({ status: 'pending', attempts: 1, roundAttempts: 1, roundStartedAt: 1_995, nextAttemptAt: 7_000, error: 'HTTP 500', responseCode: 500 });
    // The same attempt again (another process recorded it) or one out of sequence: nothing to record.
    expect(afterAttempt(first, 1, attempt('retrying', 2_001))).toBeNull();
    expect(afterAttempt(first, 3, attempt('retrying', 2_001))).toBeNull();
    const second = afterAttempt(first, 2, attempt('delivered', 8_000))!;
    expect(second).toMatchObject({ status: 'delivered', attempts: 2, roundAttempts: 2, roundStartedAt: 1_995, deliveredAt: 8_000, responseCode: 200 });
    expect(second).not.toHaveProperty('nextAttemptAt');
    expect(second).not.toHaveProperty('error');
    expect(roundOf(second)).toEqual({ attempt: 3, attemptInRound: 3, roundStartedAt: 1_995 });
    // Finished: no further attempt is recorded.
    expect(afterAttempt(second, 3, attempt('delivered', 9_000))).toBeNull();
  });

  it('a gone or failed attempt finishes it as failed', () => {
    expect(afterAttempt(queued, 1, attempt('gone', 2_000, { statusCode: 410 }))).toMatchObject({ status: 'failed', lastOutcome: 'gone', responseCode: 410 });
    expect(afterAttempt(queued, 1, attempt('failed', 2_000))).toMatchObject({ status: 'failed', lastOutcome: 'failed' });
  });

  it('requeues only a finished delivery, from a new retry window, its attempt count kept', () => {
    expect(requeuedDelivery(queued)).toBeNull();
    const failed = afterAttempt(queued, 1, attempt('failed', 2_000))!;
    const again = requeuedDelivery(failed)!;
    expect(again).toMatchObject({ status: 'pending', attempts: 1, roundAttempts: 0, roundStartedAt: null });
    expect(roundOf(again)).toEqual({ attempt: 2, attemptInRound: 1, roundStartedAt: null });
  });

  it('reads a document written before the log kept its round as a fresh round', () => {
    const legacy = { ...queued, status: 'failed' as const, attempts: 4 };
    delete legacy.roundAttempts;
    delete legacy.roundStartedAt;
    expect(roundOf({ ...legacy, status: 'pending' })).toEqual({ attempt: 5, attemptInRound: 1, roundStartedAt: null });
  });
});

describe('the 410 notice', () => {
  const spec = specFor(goneDecider);
  const notice = { appId: 'a1', webhookId: 'w1', deliveryId: 'd1', attempt: 2, outcome: 'gone' as const, statusCode: 410, latencyMs: 3, responsePrefix: '', at: 5 };
  it('is reported once per stream (one stream per gone attempt)', () => {
    spec.given([]).when({ type: 'ReportGone', attempt: notice }).then([{ type: 'DeliveryAttempted', data: notice }]);
    spec.given([{ type: 'DeliveryAttempted', data: notice }]).when({ type: 'ReportGone', attempt: notice }).thenNothingHappens();
  });
});
