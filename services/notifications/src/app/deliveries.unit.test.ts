import type { CommandRunner } from '@chat/eventsourcing';
import { describe, expect, it } from 'vitest';
import type { ProviderAnswer, Providers } from '../adapters/providers/index.js';
import type { RecordedAttempt } from '../adapters/readModels.js';
import type { NotificationDocument } from '../domain/notificationRecord.js';
import { Deliveries, outcomeOf, queuedOf } from './deliveries.js';
import type { AppDirectory, AppEntry } from './directory.js';

const policy = { baseMs: 100, maxMs: 1_000, maxAttempts: 3 };
const answer = (status?: number, invalidToken = false) => ({ ...(status !== undefined ? { status } : {}), latencyMs: 1, responsePrefix: '', ...(invalidToken ? { invalidToken } : {}) });

describe('what a provider’s answer means', () => {
  it('2xx delivers; a dead token is final; a client error other than 408/429 is not retried', () => {
    expect(outcomeOf(answer(202), 1, policy)).toBe('delivered');
    expect(outcomeOf(answer(404, true), 1, policy)).toBe('invalidToken');
    expect(outcomeOf(answer(401), 1, policy)).toBe('failed');
    expect(outcomeOf(answer(429), 1, policy)).toBe('retrying');
    expect(outcomeOf(answer(408), 1, policy)).toBe('retrying');
  });

  it('server errors and no answer at all are retried until the attempts run out', () => {
    expect(outcomeOf(answer(503), 1, policy)).toBe('retrying');
    expect(outcomeOf(answer(undefined), 2, policy)).toBe('retrying');
    expect(outcomeOf(answer(503), 3, policy)).toBe('failed');
  });
});

function pending(id: string, attempts = 0): NotificationDocument {
  return {
    notificationId: id,
    trigger: 'after_message',
    messageId: 'm1',
    conversationId: 'c1',
    messageCategory: 'message',
    messageType: 'text',
    sender: 'alice',
    receiver: 'bob',
    receiverType: 'user',
    recipient: 'bob',
    channel: 'push',
    provider: 'custom',
    providerId: 'default',
    messageSentAt: 1,
    appId: 'app1',
    payload: { hello: 'bob' },
    status: 'pending',
    attempts,
    queuedAt: 1,
  };
}

/** Deliveries over a provider answering `statuses` in turn and a recorder that notes each write. */
function deliveries(statuses: number[], recordDelayMs = 0) {
  const writes: RecordedAttempt[][] = [];
  const entry: AppEntry = {
    settings: {} as AppEntry['settings'],
    providers: new Map([['custom:default', { channel: 'push', provider: 'custom', providerId: 'default', settings: {}, secrets: {} }]]),
    defaults: {},
  };
  const subject = new Deliveries({
    runner: {} as CommandRunner,
    recordAttempts: async (attempts) => {
      writes.push([...attempts]);
      await new Promise((resolve) => setTimeout(resolve, recordDelayMs));
    },
    directory: { get: () => Promise.resolve(entry) } as unknown as AppDirectory,
    providers: { send: (): Promise<ProviderAnswer> => Promise.resolve(answer(statuses.shift() ?? 200)) } as unknown as Providers,
    retry: policy,
    clock: () => 1_000,
  });
  return { subject, writes };
}

describe('provider calls and their records', () => {
  it('numbers each call of a notification and records it, final once delivered', async () => {
    const { subject, writes } = deliveries([503, 200]);
    const queued = queuedOf(pending('n1'));
    expect(await subject.attempt(queued)).toEqual({ done: false, retryAt: expect.any(Number) as number });
    expect(await subject.attempt(queued)).toEqual({ done: true });
    expect(writes.flat().map((w) => [w.attempt.attempt, w.attempt.outcome, w.final])).toEqual([
      [1, 'retrying', false],
      [2, 'delivered', true],
    ]);
    expect(writes[0]![0]!.attempt.nextAttemptAt).toBeGreaterThan(1_000);
  });

  it('a notification resumed after a restart goes on from the calls it had made', async () => {
    const { subject, writes } = deliveries([200]);
    await subject.attempt(queuedOf(pending('n1', 2)));
    expect(writes.flat().map((w) => w.attempt.attempt)).toEqual([3]);
  });

  it('calls that end while a record is being written are recorded together, in one write', async () => {
    const { subject, writes } = deliveries([200, 200, 200, 200], 20);
    await Promise.all(['a', 'b', 'c', 'd'].map((id) => subject.attempt(queuedOf(pending(id)))));
    expect(writes.map((w) => w.map((a) => a.notification.notificationId))).toEqual([['a'], ['b', 'c', 'd']]);
  });
});
