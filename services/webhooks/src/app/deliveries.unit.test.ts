import type { KnownEvent } from '@chat/contracts';
import type { SendResult } from '@chat/delivery';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { InMemoryDocumentStore } from '@chat/mongo';
import type { GuardedWrite, StoredRecord } from '@chat/mongo';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DeliveryLog, storedDelivery } from '../adapters/deliveryLog.js';
import { afterAttempt } from '../domain/delivery.js';
import { Deliveries, deliveryIdOf } from './deliveries.js';
import type { Endpoint } from './directory.js';

/** The in-memory store, counting the statements each kind of write sends. */
class CountingStore extends InMemoryDocumentStore {
  readonly inserts: StoredRecord[][] = [];
  readonly guarded: GuardedWrite[] = [];
  /** Guarded write commands (each may hold many statements). */
  guardedCommands = 0;
  override insert(documents: readonly StoredRecord[]): Promise<string[]> {
    this.inserts.push([...documents]);
    return super.insert(documents);
  }
  override writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    this.guarded.push(...writes);
    this.guardedCommands += 1;
    return super.writeGuarded(writes);
  }
  /** The stored deliveries as the log reads them (ADR 0073: most fields packed), with their id and `_rev`. */
  deliveries(): Array<Record<string, unknown>> {
    return this.stored().map(decoded);
  }
}

function decoded(record: StoredRecord): Record<string, unknown> {
  const { document, rev } = storedDelivery(record as Parameters<typeof storedDelivery>[0]);
  return { ...document, _id: record._id, _rev: rev };
}

const endpoint: Endpoint = {
  webhook: { appId: 'app1', webhookId: 'w1', name: 'w', url: 'http://127.0.0.1:1/hook', triggers: ['message_sent'], enabled: true, retryOnFailure: true, useBasicAuth: false, deleted: false, createdAt: 0, updatedAt: 0 } as unknown as Endpoint['webhook'],
  secret: 'whsec_dGVzdA==',
};

const sent = (conversation: string, n: number): KnownEvent =>
  testEnvelope(
    'MessageSent',
    `messages:app1:${conversation}`,
    n,
    { id: `${conversation}-${n}`, conversationId: conversation, sender: 'a', receiver: 'b', receiverType: 'user', category: 'message', type: 'text', data: { text: `#${n}` }, sentAt: n },
    Date.now(),
  ) as unknown as KnownEvent;

/** The webhooks the harness's directory answers for every event (one unless a test adds some). */
let subscribersNow: Endpoint[] = [endpoint];

function harness(answers: Array<number | (() => Promise<SendResult>)>, firstAttemptWaitMs = 1_000) {
  subscribersNow = [endpoint];
  const store = new CountingStore();
  const log = new DeliveryLog(store);
  const posts: string[] = [];
  const notices: unknown[] = [];
  const gone: string[] = [];
  let clock = 1_000_000;
  const deliveries = new Deliveries({
    log,
    runner: {
      run: (request) => {
        notices.push({ streamId: request.streamId, command: request.command });
        return Promise.resolve({ events: [], version: 1 } as never);
      },
    },
    directory: {
      subscribers: () => Promise.resolve(subscribersNow),
      deliverable: () => Promise.resolve(endpoint),
      markGone: (_appId, webhookId) => {
        gone.push(webhookId);
        return Promise.resolve();
      },
    },
    sender: {
      post: (_url, _headers, body) => {
        posts.push(body);
        const answer = answers.shift() ?? 200;
        return typeof answer === 'number' ? Promise.resolve({ status: answer, latencyMs: 2, responsePrefix: `HTTP ${answer}` }) : answer();
      },
    },
    retry: { baseMs: 10, maxMs: 100, windowMs: 60_000 },
    region: 'us',
    logger: pino({ level: 'silent' }),
    firstAttemptWaitMs,
    clock: () => (clock += 10),
  });
  return { store, log, deliveries, posts, notices, gone };
}

describe('deliveries in the log', () => {
  it('stores a run in one grouped insert; each first attempt answered by then is stored delivered, never updated', async () => {
    const { store, deliveries } = harness([200, 200, 200]);
    const planned = await deliveries.plan([sent('a_user_b', 1), sent('a_user_b', 2), sent('a_user_c', 1)]);
    expect(planned).toHaveLength(3);
    const attempts = planned.map((d) => deliveries.attempt(d));
    await deliveries.secure(planned);
    expect(await Promise.all(attempts)).toEqual([{ done: true }, { done: true }, { done: true }]);
    await deliveries.drain();
    expect(store.inserts).toHaveLength(1);
    expect(store.inserts[0]!.map((d) => [d['status'], d['attempts'], d['_rev']])).toEqual([
      ['delivered', 1, 1],
      ['delivered', 1, 1],
      ['delivered', 1, 1],
    ]);
    expect(store.guarded).toEqual([]);
  });

  it('a failed first attempt goes into the insert with its retry; the retry updates that one document', async () => {
    const { store, deliveries } = harness([500, 200]);
    const [delivery] = await deliveries.plan([sent('a_user_b', 1)]);
    const first = await deliveries.attempt(delivery!);
    expect(first).toMatchObject({ done: false });
    await deliveries.secure([delivery!]);
    expect(decoded(store.inserts[0]![0]!)).toMatchObject({ status: 'pending', attempts: 1, responseCode: 500, roundAttempts: 1 });
    expect(await deliveries.attempt(delivery!)).toEqual({ done: true });
    await deliveries.drain();
    expect(store.deliveries().find((d) => d._id === delivery!.deliveryId)).toMatchObject({ status: 'delivered', attempts: 2, responseCode: 200, roundAttempts: 2, _rev: 2 });
    expect(store.guarded).toHaveLength(1);
  });

  it('an answer that comes after the insert began is written after it, guarded by the stored revision', async () => {
    let answer!: (result: SendResult) => void;
    const { store, deliveries } = harness([() => new Promise<SendResult>((resolve) => (answer = resolve))], 0);
    const [delivery] = await deliveries.plan([sent('a_user_b', 1)]);
    const attempt = deliveries.attempt(delivery!);
    await deliveries.secure([delivery!]);
    expect(store.deliveries().find((d) => d._id === delivery!.deliveryId)).toMatchObject({ status: 'pending', attempts: 0, _rev: 1 });
    answer({ status: 204, latencyMs: 3, responsePrefix: '' });
    await attempt;
    await deliveries.drain();
    expect(store.deliveries().find((d) => d._id === delivery!.deliveryId)).toMatchObject({ status: 'delivered', attempts: 1, responseCode: 204, _rev: 2 });
  });

  it('deliveries answered after their insert, while a record of one is written, are recorded together in one command', async () => {
    const answers: Array<(result: SendResult) => void> = [];
    const pendingAnswer = () => new Promise<SendResult>((resolve) => answers.push(resolve));
    const { store, deliveries } = harness([pendingAnswer, pendingAnswer, pendingAnswer, pendingAnswer], 0);
    const planned = await deliveries.plan([sent('a_user_b', 1), sent('a_user_c', 1), sent('a_user_d', 1), sent('a_user_e', 1)]);
    const attempts = planned.map((d) => deliveries.attempt(d));
    await deliveries.secure(planned);
    expect(store.inserts[0]!.map((d) => d['status'])).toEqual(['pending', 'pending', 'pending', 'pending']);
    // The first answer's record goes alone and is held in the store; the three that come meanwhile go together.
    const write = store.writeGuarded.bind(store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    store.writeGuarded = async (writes) => {
      if (store.guardedCommands === 0) await held;
      return write(writes);
    };
    answers[0]!({ status: 200, latencyMs: 3, responsePrefix: '' });
    await new Promise((resolve) => setImmediate(resolve));
    for (const answer of answers.slice(1)) answer({ status: 204, latencyMs: 3, responsePrefix: '' });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(await Promise.all(attempts)).toEqual(planned.map(() => ({ done: true })));
    await deliveries.drain();
    expect(store.guardedCommands).toBe(2);
    expect(store.deliveries().map((d) => [d['status'], d['attempts'], d['_rev']])).toEqual(planned.map(() => ['delivered', 1, 2]));
  });

  it('a delivered record whose command reported a loss reads the delivery again and finds it recorded', async () => {
    let answer!: (result: SendResult) => void;
    const { store, deliveries } = harness([() => new Promise<SendResult>((resolve) => (answer = resolve))], 0);
    const [delivery] = await deliveries.plan([sent('a_user_b', 1)]);
    const attempt = deliveries.attempt(delivery!);
    await deliveries.secure([delivery!]);
    // As the store answers a command in which another statement missed: every id of it reported.
    const write = store.writeGuarded.bind(store);
    store.writeGuarded = async (writes) => [...(await write(writes)), ...writes.map((w) => (w.kind === 'replace' ? w.document._id : w.id))];
    answer({ status: 200, latencyMs: 3, responsePrefix: '' });
    expect(await attempt).toEqual({ done: true });
    await deliveries.drain();
    expect(store.deliveries().find((d) => d._id === delivery!.deliveryId)).toMatchObject({ status: 'delivered', attempts: 1, _rev: 2 });
  });

  it('an insert that fails fails the run; the run again stores what the attempts came to, without a second POST', async () => {
    const { store, deliveries, posts } = harness([200]);
    const failing = store.insert.bind(store);
    let refuse = true;
    store.insert = (documents) => (refuse ? Promise.reject(new Error('store down')) : failing(documents));
    const event = sent('a_user_b', 1);
    const planned = await deliveries.plan([event]);
    await deliveries.attempt(planned[0]!);
    await expect(deliveries.secure(planned)).rejects.toThrow('store down');
    refuse = false;
    const again = await deliveries.plan([event]);
    expect(again.map((d) => d.deliveryId)).toEqual(planned.map((d) => d.deliveryId));
    expect(await deliveries.attempt(again[0]!)).toEqual({ done: true });
    await deliveries.secure(again);
    expect(posts).toHaveLength(1);
    expect(store.deliveries().find((d) => d._id === planned[0]!.deliveryId)).toMatchObject({ status: 'delivered', attempts: 1, _rev: 1 });
  });

  it('an event that comes again is not planned twice, and a replayed event already stored is not sent again', async () => {
    const { deliveries } = harness([200]);
    const event = sent('a_user_b', 1);
    const planned = await deliveries.plan([event]);
    await deliveries.attempt(planned[0]!);
    await deliveries.secure(planned);
    expect(await deliveries.plan([event])).toEqual([]);
    expect(await deliveries.queue([event])).toEqual([]);
    // A replayed event never stored is stored now and handed to the dispatcher.
    expect((await deliveries.queue([sent('a_user_b', 2)])).map((d) => d.orderKey)).toEqual(['messages:app1:a_user_b']);
  });

  it('an event that comes again after a webhook was created gets no delivery to that webhook', async () => {
    const { deliveries, posts } = harness([200, 200]);
    const event = sent('a_user_b', 1);
    const planned = await deliveries.plan([event]);
    await deliveries.attempt(planned[0]!);
    await deliveries.secure(planned);
    // The copy Kafka carries again now matches a second webhook as well, created after the event.
    const later = { ...endpoint, webhook: { ...endpoint.webhook, webhookId: 'w2' } };
    subscribersNow = [endpoint, later];
    expect(await deliveries.plan([event])).toEqual([]);
    expect(posts).toHaveLength(1);
  });

  it('a write lost to another process reads the delivery again and records the next attempt after it', async () => {
    const { store, log, deliveries } = harness([500, 500]);
    const [delivery] = await deliveries.plan([sent('a_user_b', 1)]);
    await deliveries.attempt(delivery!);
    await deliveries.secure([delivery!]);
    // Another replica (resuming it after a restart) recorded an attempt meanwhile.
    const theirs = await log.find(delivery!.deliveryId);
    const recorded = afterAttempt(theirs!.document, 2, { outcome: 'retrying', statusCode: 502, latencyMs: 1, responsePrefix: '', nextAttemptAt: 5, at: 4 });
    expect(await log.replace(recorded!, theirs!.rev)).toBe(true);
    expect(await deliveries.attempt(delivery!)).toMatchObject({ done: false });
    expect(store.deliveries().find((d) => d._id === delivery!.deliveryId)).toMatchObject({ attempts: 3, roundAttempts: 3, responseCode: 500, _rev: 3 });
  });

  it('a 410 reports one notice for management, finishes the delivery and marks the webhook gone', async () => {
    const { store, deliveries, notices, gone } = harness([410]);
    const [delivery] = await deliveries.plan([sent('a_user_b', 1)]);
    expect(await deliveries.attempt(delivery!)).toEqual({ done: true });
    await deliveries.secure([delivery!]);
    expect(notices).toEqual([
      {
        streamId: `delivery-gone:app1:${delivery!.deliveryId}:1`,
        command: { type: 'ReportGone', attempt: expect.objectContaining({ deliveryId: delivery!.deliveryId, webhookId: 'w1', attempt: 1, outcome: 'gone', statusCode: 410 }) },
      },
    ]);
    expect(gone).toEqual(['w1']);
    expect(store.deliveries().find((d) => d._id === delivery!.deliveryId)).toMatchObject({ status: 'failed', lastOutcome: 'gone', attempts: 1 });
  });

  it('requeues only a finished delivery, which is then attempted from a new retry window', async () => {
    const { log, deliveries } = harness([200, 200]);
    const [delivery] = await deliveries.plan([sent('a_user_b', 1)]);
    await deliveries.attempt(delivery!);
    await deliveries.secure([delivery!]);
    const requeued = await deliveries.requeue((await log.find(delivery!.deliveryId))!);
    expect(requeued?.document).toMatchObject({ status: 'pending', attempts: 1, roundAttempts: 0 });
    expect(await deliveries.requeue((await log.find(delivery!.deliveryId))!)).toBeNull();
    expect(await deliveries.attempt(requeued!.delivery)).toEqual({ done: true });
    await deliveries.drain();
    expect((await log.find(delivery!.deliveryId))!.document).toMatchObject({ status: 'delivered', attempts: 2, roundAttempts: 1 });
  });
});

describe('deliveryIdOf', () => {
  it('gives a (webhook, event) the id earlier builds gave it, so a replayed event is still a duplicate', () => {
    // The first 32 hex digits of SHA-256("hook-1\nevent-1"), as every build since ADR 0044 stored it.
    expect(deliveryIdOf('hook-1', 'event-1')).toBe('1e232b8c5c2e62cb89df93f9ab8245c8');
  });
});
