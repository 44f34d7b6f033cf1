import type { CommandRunner } from '@chat/eventsourcing';
import { describe, expect, it } from 'vitest';
import type { ProviderAnswer, Providers } from '../adapters/providers/index.js';
import type { MessageRecord, RecordedAttempt } from '../adapters/readModels.js';
import { messageLogId } from '../domain/logPage.js';
import type { NotificationDocument } from '../domain/notificationRecord.js';
import { Deliveries, outcomeOf, queuedOf } from './deliveries.js';
import type { AppDirectory, AppEntry } from './directory.js';

const policy = { baseMs: 100, maxMs: 1_000, maxAttempts: 3 };
const answer = (status?: number, invalidToken = false) => ({ ...(status !== undefined ? { status } : {}), latencyMs: 1, responsePrefix: '', ...(invalidToken ? { invalidToken } : {}) });

/** A run the consumer says may have been handed before. */
const again = { mayRepeat: true };

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

function pending(id: string, attempts = 0, messageId = 'm1'): NotificationDocument {
  return {
    notificationId: id,
    trigger: 'after_message',
    messageId,
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

/** What the store holds: log entry ids and pending notifications (shared by every "process" of a test). */
class FakeStore {
  readonly logged = new Map<string, string>();
  /** Messages whose run record is stored. */
  readonly messages = new Set<string>();
  /** How often the store was asked what was decided. */
  checks = 0;
  readonly pending = new Map<string, NotificationDocument>();
  readonly timeline: string[] = [];
  runFailures = 0;

  decidedBefore(messages: ReadonlyArray<{ appId: string; messageId: string }>, ids: readonly string[]): Promise<{ messages: Set<string>; sends: Set<string> }> {
    this.checks += 1;
    return Promise.resolve({
      messages: new Set(messages.map((m) => messageLogId(m.appId, m.messageId)).filter((id) => this.messages.has(id))),
      sends: new Set(ids.filter((id) => this.logged.has(`${id}-1`))),
    });
  }

  async recordRun(records: readonly MessageRecord[], pending: readonly NotificationDocument[], delayMs: number): Promise<void> {
    const entries = records.flatMap((r) => r.entries);
    this.timeline.push('run record begins');
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (this.runFailures > 0) {
      this.runFailures -= 1;
      this.timeline.push('run record failed');
      throw new Error('the store refused the write');
    }
    for (const entry of entries) this.logged.set(entry._id, entry.outcome ?? entry.reason ?? '');
    for (const n of pending) this.pending.set(n.notificationId, n);
    for (const r of records) this.messages.add(messageLogId(r.appId, r.messageId));
    this.timeline.push(`run record: ${entries.map((e) => e._id).join(',')} pending ${pending.map((n) => `${n.notificationId}@${n.attempts}`).join(',')}`);
  }

  async recordAttempts(attempts: readonly RecordedAttempt[], delayMs: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    for (const { notification, attempt, final } of attempts) {
      this.logged.set(`${notification.notificationId}-${attempt.attempt}`, attempt.outcome);
      if (final) this.pending.delete(notification.notificationId);
    }
    this.timeline.push(`attempts: ${attempts.map((a) => `${a.notification.notificationId}-${a.attempt.attempt}`).join(',')}`);
  }
}

interface Harness {
  /** Provider answers in turn (a status, or a delay then a status). */
  answers?: Array<number | { afterMs: number; status: number }>;
  firstAttemptWaitMs?: number;
  recordDelayMs?: number;
  runDelayMs?: number;
  store?: FakeStore;
  /** false: the fake dispatcher only takes notifications; the test makes the calls. */
  dispatching?: boolean;
}

/**
 * Deliveries over a scripted provider and a fake store; the dispatcher is a fake that makes each
 * queued call at once (and a retry when asked).
 */
function deliveries({ answers = [], firstAttemptWaitMs = 1_000, recordDelayMs = 0, runDelayMs = 0, store = new FakeStore(), dispatching = true }: Harness = {}) {
  const calls: string[] = [];
  const entry: AppEntry = {
    settings: {} as AppEntry['settings'],
    providers: new Map([['custom:default', { channel: 'push', provider: 'custom', providerId: 'default', settings: {}, secrets: {} }]]),
    defaults: {},
  };
  const results: Array<Promise<unknown>> = [];
  const subject: Deliveries = new Deliveries({
    runner: {} as CommandRunner,
    decidedBefore: (messages, ids) => store.decidedBefore(messages, ids),
    recordRun: (records, pending) => store.recordRun(records, pending, runDelayMs),
    recordAttempts: (attempts) => store.recordAttempts(attempts, recordDelayMs),
    dispatch: (queued) => dispatching && results.push(subject.attempt(queued)),
    directory: { get: () => Promise.resolve(entry) } as unknown as AppDirectory,
    providers: {
      send: async (notification: NotificationDocument): Promise<ProviderAnswer> => {
        calls.push(notification.notificationId);
        const next = answers.shift() ?? 200;
        if (typeof next === 'number') return answer(next);
        await new Promise((resolve) => setTimeout(resolve, next.afterMs));
        return answer(next.status);
      },
    } as unknown as Providers,
    retry: policy,
    firstAttemptWaitMs,
    clock: () => 1_000,
  });
  return { subject, store, calls, settled: () => Promise.all(results) };
}

describe('provider calls of stored notifications and their records', () => {
  it('numbers each call of a notification and records it, final once delivered', async () => {
    const { subject, store } = deliveries({ answers: [503, 200], dispatching: false });
    store.pending.set('n1', pending('n1'));
    subject.resume(pending('n1'));
    const queued = queuedOf(pending('n1'));
    expect(await subject.attempt(queued)).toEqual({ done: false, retryAt: expect.any(Number) as number });
    expect(await subject.attempt(queued)).toEqual({ done: true });
    expect(store.timeline.filter((t) => t.startsWith('attempts'))).toEqual(['attempts: n1-1', 'attempts: n1-2']);
    expect([...store.logged]).toEqual([
      ['n1-1', 'retrying'],
      ['n1-2', 'delivered'],
    ]);
    expect(store.pending.size).toBe(0);
  });

  it('a notification resumed after a restart goes on from the calls it had made', async () => {
    const { subject, store, settled } = deliveries();
    subject.resume(pending('n1', 2));
    await settled();
    expect([...store.logged.keys()]).toEqual(['n1-3']);
  });

  it('calls that end while a record is being written are recorded together, in one write', async () => {
    const { subject, store, settled } = deliveries({ recordDelayMs: 20 });
    for (const id of ['a', 'b', 'c', 'd']) subject.resume(pending(id));
    await settled();
    expect(store.timeline).toEqual(['attempts: a-1', 'attempts: b-1,c-1,d-1']);
  });
});

describe('a run’s sends: the first call waited for, then one record (ADR 0049)', () => {
  it('a send answered within the wait is logged with the run and never stored as pending', async () => {
    const { subject, store, calls } = deliveries();
    await subject.take([{ ...pending('s1'), notificationTriggered: false, reason: 'MUTE_PREFERENCE', processingStartedAtMS: 1, processingEndedAtMS: 1 }], [pending('n1'), pending('n2')], again);
    expect(calls).toEqual(['n1', 'n2']);
    expect(store.timeline).toEqual(['run record begins', 'run record: s1,n1-1,n2-1 pending ']);
    expect(store.pending.size).toBe(0);
  });

  it('a send not answered within the wait is stored pending, and its call recorded after that record', async () => {
    const { subject, store, settled } = deliveries({ answers: [{ afterMs: 30, status: 200 }], firstAttemptWaitMs: 5, runDelayMs: 60 });
    await subject.take([], [pending('n1')], again);
    await settled();
    expect(store.timeline).toEqual(['run record begins', 'run record:  pending n1@0', 'attempts: n1-1']);
    expect(store.pending.size).toBe(0);
  });

  it('a first call to be retried is logged and stored pending with its count, and the retry goes on from it', async () => {
    const { subject, store } = deliveries({ answers: [503, 200] });
    await subject.take([], [pending('n1')], again);
    expect(store.timeline).toEqual(['run record begins', 'run record: n1-1 pending n1@1']);
    expect(store.pending.get('n1')!.nextAttemptAt).toBeGreaterThan(1_000);
    expect(await subject.attempt(queuedOf(pending('n1')))).toEqual({ done: true });
    expect(store.logged.get('n1-2')).toBe('delivered');
    expect(store.pending.size).toBe(0);
  });

  it('exactly once: a redelivered run, a restarted process and another replica send nothing twice', async () => {
    const store = new FakeStore();
    // The provider answers n1 at once and n2 only after the wait: n2 is stored pending, its call in flight.
    const first = deliveries({ store, answers: [200, { afterMs: 40, status: 200 }], firstAttemptWaitMs: 10 });
    await first.subject.take([], [pending('n1'), pending('n2')], again);
    // Redelivered to the same process while n2's call is in flight: neither is called again.
    await first.subject.take([], [pending('n1'), pending('n2')], again);
    expect(first.calls).toEqual(['n1', 'n2']);
    // Another replica gets the run while n2 is still pending in the store: it sends neither.
    const replica = deliveries({ store });
    await replica.subject.take([], [pending('n1'), pending('n2')], again);
    expect(replica.calls).toEqual([]);
    await first.settled();
    // A restarted process: n2 was delivered and deleted, n1 logged; a redelivery sends nothing.
    const restarted = deliveries({ store });
    for (const n of store.pending.values()) restarted.subject.resume(n);
    await restarted.subject.take([], [pending('n1'), pending('n2')], again);
    await restarted.settled();
    expect(restarted.calls).toEqual([]);
    expect([...store.logged.keys()].sort()).toEqual(['n1-1', 'n2-1']);
  });

  it('a run whose record failed is stored by the run again, with the calls made meanwhile, none made twice', async () => {
    const { subject, store, calls } = deliveries();
    store.runFailures = 1;
    await expect(subject.take([], [pending('n1')], again)).rejects.toThrow('refused');
    await subject.take([], [pending('n1')], again);
    expect(calls).toEqual(['n1']);
    expect(store.timeline).toEqual(['run record begins', 'run record failed', 'run record begins', 'run record: n1-1 pending ']);
  });

  it('a first delivery (the consumer says no member was handed it before) asks the store nothing', async () => {
    const { subject, store, calls } = deliveries();
    await subject.take([], [pending('n1')], { mayRepeat: false });
    expect(store.checks).toBe(0);
    expect(calls).toEqual(['n1']);
    await subject.take([], [pending('n2', 0, 'm2')], { mayRepeat: true });
    expect(store.checks).toBe(1);
  });

  it('an event Kafka carries twice, the second copy a first delivery to the consumer, is not sent twice', async () => {
    const { subject, store, calls, settled } = deliveries();
    const fresh = { mayRepeat: false };
    await subject.take([], [pending('n1')], fresh);
    await settled();
    await subject.take([], [pending('n1')], fresh);
    expect(calls).toEqual(['n1']);
    expect(store.checks).toBe(0);
  });
});
