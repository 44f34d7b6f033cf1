import { hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Actor, KnownEvent } from '@chat/contracts';
import { FirstAnswerWait, receiverOf } from '@chat/delivery';
import type { AttemptResult, OutboundHttp, QueuedDelivery } from '@chat/delivery';
import { Coalescer, RecentlyUsed, backoffDelay, commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { Logger } from 'pino';
import type { DeliveryLog, StoredDelivery } from '../adapters/deliveryLog.js';
import { afterAttempt, goneDecider, goneStreamId, queuedDelivery, requeuedDelivery, roundOf } from '../domain/delivery.js';
import type { AttemptRecord, DeliveryDocument } from '../domain/delivery.js';
import { decideRetry } from '../domain/retrySchedule.js';
import type { RetryPolicy } from '../domain/retrySchedule.js';
import { triggerOf, webhookBodies } from '../domain/triggers.js';
import type { WebhookDirectory } from './directory.js';
import { webhookSignature } from '@chat/delivery';

/**
 * Source events this process planned deliveries for that it still recognises. Kafka may carry an
 * event twice: when consecutive commits of a stream come from two replicas, the second publishes what
 * it finds of the first still unreleased in the journal before its own commit (ADR 0008), usually
 * within a second of the first's own publish. Recognising the event, not only its delivery ids, keeps
 * the receiver from a second POST of a delivery already made, and a webhook created since the event
 * occurred from receiving it (the second copy would match it: subscribers are read as configured when
 * the event occurred or later).
 */
const RECENTLY_PLANNED = 100_000;
/** How a delivered attempt's record is retried when the store refuses it for a moment. */
const RECORD_RETRY = { baseMs: 200, maxMs: 5_000 };
/** Guarded writes of one attempt's record lost to another writer before it gives up (then it is retried as an outage). */
const RECORD_RACES = 3;
/** Delivered records written in one command at most (the rest wait for the next). */
const DELIVERED_PER_WRITE = 500;

/** The delivery process acts as itself in the notices it records. */
const deliveryActor = (appId: string): Actor => ({ appId, keyId: 'webhooks', scope: 'management' });

export interface DeliveryDeps {
  log: DeliveryLog;
  /** Records the one notice other services need: a receiver answered 410 Gone. */
  runner: Pick<CommandRunner, 'run'>;
  directory: Pick<WebhookDirectory, 'subscribers' | 'deliverable' | 'markGone'>;
  sender: Pick<OutboundHttp, 'post'>;
  retry: RetryPolicy;
  region: string;
  logger: Logger;
  /** How long a run of new source events waits for first attempts before it stores the rest as queued. */
  firstAttemptWaitMs: number;
  clock?: () => number;
}

/**
 * A delivery this process has in hand: planned from a source event and not stored yet, or stored (read
 * at start, requeued, or stored by this process) and still being attempted.
 */
interface Tracked {
  delivery: QueuedDelivery;
  /** As stored at `rev`; or, not stored yet, what its insert will carry (attempts made meanwhile included). */
  document: DeliveryDocument;
  /** The stored document's compare-and-set counter; null when stored by someone else at an unknown one. */
  rev: number | null;
  /** false: in memory only; a promise: its insert is in flight; true: stored. */
  stored: boolean | Promise<void>;
  /** Resolves when its first attempt has an answer (a delivery planned from a new source event). */
  attempted?: Promise<void>;
  markAttempted?: () => void;
  /** The dispatcher is done with it: forgotten as soon as it is stored. */
  finished: boolean;
}

/**
 * The same (webhook, event) always gets the same delivery id, so a redelivered event is queued once.
 * One-shot `hash` (ADR 0127), the same hex digest as `createHash`.
 */
export function deliveryIdOf(webhookId: string, eventId: string): string {
  return hash('sha256', `${webhookId}\n${eventId}`).slice(0, 32);
}

/**
 * Queues a delivery per matching webhook for each source event, and makes and records attempts in the
 * delivery log (ADR 0044): a run's new deliveries in one grouped insert, carrying the outcome of every
 * first attempt answered by then; a later attempt as one guarded write. The log is the pending work a
 * restart resumes.
 */
export class Deliveries {
  private readonly clock: () => number;
  /** Records of successful attempts still being written. */
  private readonly recording = new Set<Promise<void>>();
  /** Deliveries in hand, by delivery id. */
  private readonly tracked = new Map<string, Tracked>();
  /** Ids of the last RECENTLY_PLANNED source events planned here. */
  private readonly recentlyPlanned = new RecentlyUsed<string, true>(RECENTLY_PLANNED);
  /**
   * Deliveries answered 2xx after their run's insert (ADR 0059): those answered while a write of
   * them is in flight are written together, one command, each still guarded by its `_rev`.
   */
  private readonly delivered: Coalescer<{ document: DeliveryDocument; expectedRev: number }, boolean>;
  /** Which webhooks a run waits for (one answering slower than the window would hold every run). */
  private readonly firstAnswers: FirstAnswerWait;

  constructor(private readonly deps: DeliveryDeps) {
    this.clock = deps.clock ?? Date.now;
    this.firstAnswers = new FirstAnswerWait(deps.firstAttemptWaitMs);
    this.delivered = new Coalescer(async (_key, writes) => {
      const lost = await deps.log.replaceMany(writes);
      return writes.map((w) => !lost.has(w.document.deliveryId));
    }, DELIVERED_PER_WRITE);
  }

  /** Waits for the records of successful attempts still being written (at stop). */
  async drain(): Promise<void> {
    await Promise.all(this.recording);
  }

  /** A stored pending delivery (read at start, or requeued) taken in hand; what the dispatcher queues. */
  resume(stored: StoredDelivery): QueuedDelivery {
    const delivery = queuedOf(stored.document);
    this.tracked.set(delivery.deliveryId, { delivery, document: stored.document, rev: stored.rev, stored: true, finished: false });
    return delivery;
  }

  /** Each (matching webhook, source event) pair as a delivery and its queued document. */
  private async planned(events: readonly KnownEvent[]): Promise<Array<{ delivery: QueuedDelivery; document: DeliveryDocument }>> {
    const planned: Array<{ delivery: QueuedDelivery; document: DeliveryDocument }> = [];
    for (const event of events) {
      const match = triggerOf(event);
      if (!match) continue;
      const bodyFor = webhookBodies(match, event.appId, this.deps.region);
      for (const { webhook } of await this.deps.directory.subscribers(event.appId, match.trigger, Date.parse(event.occurredAt))) {
        const deliveryId = deliveryIdOf(webhook.webhookId, event.id);
        const body = bodyFor(webhook.webhookId);
        const delivery = { deliveryId, appId: event.appId, webhookId: webhook.webhookId, orderKey: event.streamId, body, notBefore: 0 };
        const document = queuedDelivery({
          appId: event.appId,
          webhookId: webhook.webhookId,
          deliveryId,
          trigger: match.trigger,
          sourceEventId: event.id,
          orderKey: event.streamId,
          sourceVersion: event.version,
          body,
          occurredAt: Date.parse(event.occurredAt),
          queuedAt: this.clock(),
        });
        planned.push({ delivery, document });
      }
    }
    return planned;
  }

  /**
   * Source events this process may have handled before (a replay after a restart): their deliveries
   * are stored first, and only those stored just now are returned for the dispatcher, so a delivery
   * made before the restart is not sent again.
   */
  async queue(events: readonly KnownEvent[]): Promise<QueuedDelivery[]> {
    const planned = (await this.planned(events)).filter(({ delivery }) => !this.tracked.has(delivery.deliveryId));
    const existing = await this.deps.log.insert(planned.map(({ document }) => document));
    return planned
      .filter(({ delivery }) => !existing.has(delivery.deliveryId))
      .map(({ document }) => this.resume({ document, rev: 1 }));
  }

  /**
   * New source events: their deliveries go to the dispatcher at once, unstored; `secure` then stores
   * them before the consumer moves on. A delivery already planned and not yet stored (the run came
   * again after a failed `secure`) is returned as it is, not planned twice; an event planned here
   * before (the same event again on Kafka) gets no new delivery, not even for a webhook created since.
   */
  async plan(events: readonly KnownEvent[]): Promise<QueuedDelivery[]> {
    const seenBefore = new Set(events.filter((e) => this.recentlyPlanned.has(e.id)).map((e) => e.id));
    for (const event of events) this.recentlyPlanned.set(event.id, true);
    const deliveries: QueuedDelivery[] = [];
    for (const { delivery, document } of await this.planned(events)) {
      const known = this.tracked.get(delivery.deliveryId);
      if (known) {
        if (known.stored !== true) deliveries.push(known.delivery);
        continue;
      }
      if (seenBefore.has(document.eventId)) continue;
      let markAttempted!: () => void;
      const attempted = new Promise<void>((resolve) => (markAttempted = resolve));
      this.tracked.set(delivery.deliveryId, { delivery, document, rev: null, stored: false, attempted, markAttempted, finished: false });
      deliveries.push(delivery);
    }
    return deliveries;
  }

  /**
   * Makes planned deliveries durable: waits up to `firstAttemptWaitMs` for their first attempts (not
   * for a webhook that answers slower, ADR 0158), then stores them all in one grouped insert, each with
   * what its attempts came to by then (a delivery answered 2xx is stored delivered: one statement, never
   * updated).
   */
  async secure(deliveries: readonly QueuedDelivery[]): Promise<void> {
    const pending = deliveries.map((d) => this.tracked.get(d.deliveryId)).filter((t): t is Tracked => t !== undefined && t.stored !== true);
    if (pending.length === 0) return;
    await this.firstAnswers.wait(pending.map((t) => ({ receiver: receiverOf(t.delivery), answered: t.attempted ?? Promise.resolve() })));
    // An insert begun by an earlier call for the same run is waited for, not repeated.
    await Promise.all(pending.map((t) => (t.stored instanceof Promise ? t.stored.catch(() => undefined) : Promise.resolve())));
    const fresh = pending.filter((t) => t.stored === false);
    if (fresh.length === 0) return;
    const insert = this.deps.log.insert(fresh.map((t) => t.document));
    const written = insert.then(() => undefined);
    // Its failure is reported here, below; attempts waiting on it only need to know when it settled.
    written.catch(() => undefined);
    for (const t of fresh) t.stored = written;
    let existing: Set<string>;
    try {
      existing = await insert;
    } catch (error) {
      for (const t of fresh) if (t.stored === written) t.stored = false;
      throw error;
    }
    for (const t of fresh) {
      t.stored = true;
      // Stored before by someone else (a replica that had the partition, or an insert whose answer was lost).
      t.rev = existing.has(t.delivery.deliveryId) ? null : 1;
      if (t.finished) this.tracked.delete(t.delivery.deliveryId);
    }
  }

  /**
   * A finished delivery sent again from a new retry window (redelivery); null for one still pending
   * (already on its way). The caller hands the returned delivery to the dispatcher.
   */
  async requeue(found: StoredDelivery): Promise<{ delivery: QueuedDelivery; document: DeliveryDocument } | null> {
    let current: StoredDelivery | null = found;
    for (let race = 0; current && race < RECORD_RACES; race++) {
      const next = requeuedDelivery(current.document);
      if (!next) return null;
      if (await this.deps.log.replace(next, current.rev)) return { delivery: this.resume({ document: next, rev: current.rev + 1 }), document: next };
      current = await this.deps.log.find(found.document.deliveryId);
    }
    if (!current) return null;
    throw new Error(`delivery ${found.document.deliveryId} kept changing while it was requeued`);
  }

  /** One attempt: signed POST, then its outcome recorded; a disabled webhook's delivery is closed unsent. */
  async attempt(delivery: QueuedDelivery): Promise<AttemptResult> {
    const tracked = this.tracked.get(delivery.deliveryId) ?? (await this.reload(delivery));
    // Finished and not stored yet: handed over again by a run retried after a failed insert.
    if (!tracked || (tracked.finished && tracked.document.status !== 'pending')) return { done: true };
    let result: AttemptResult;
    try {
      result = await this.attemptOnce(tracked);
    } finally {
      tracked.markAttempted?.();
    }
    if (result.done) {
      tracked.finished = true;
      if (tracked.stored === true && this.tracked.get(delivery.deliveryId) === tracked) this.tracked.delete(delivery.deliveryId);
    }
    return result;
  }

  /** A delivery the dispatcher holds that this process no longer has in hand: read from the log. */
  private async reload(delivery: QueuedDelivery): Promise<Tracked | null> {
    const found = await this.deps.log.find(delivery.deliveryId);
    if (!found || found.document.status !== 'pending') return null;
    this.resume(found);
    return this.tracked.get(delivery.deliveryId) ?? null;
  }

  private async attemptOnce(tracked: Tracked): Promise<AttemptResult> {
    const { delivery } = tracked;
    const endpoint = await this.deps.directory.deliverable(delivery.appId, delivery.webhookId);
    if (!endpoint) {
      await this.record(tracked, () => ({
        outcome: 'failed',
        error: 'webhook disabled, deleted, or its app deleted',
        latencyMs: 0,
        responsePrefix: '',
        at: this.clock(),
      }));
      return { done: true };
    }
    const timestamp = Math.floor(this.clock() / 1000);
    const headers: Record<string, string> = {
      'webhook-id': delivery.deliveryId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignature(endpoint.secret, delivery.deliveryId, timestamp, delivery.body),
      'user-agent': 'chat-platform-webhooks/1',
      ...(endpoint.authorization ? { authorization: endpoint.authorization } : {}),
    };
    const sent = await this.deps.sender.post(endpoint.webhook.url, headers, delivery.body);
    this.firstAnswers.answered(receiverOf(delivery), sent.latencyMs);
    const now = this.clock();
    const facts = {
      ...(sent.status !== undefined ? { statusCode: sent.status } : {}),
      ...(sent.error !== undefined ? { error: sent.error.slice(0, 256) } : {}),
      latencyMs: sent.latencyMs,
      responsePrefix: sent.responsePrefix,
      at: now,
    };
    if (sent.status !== undefined && sent.status >= 200 && sent.status < 300) {
      const delivered: AttemptRecord = { outcome: 'delivered', ...facts };
      // Not stored yet: the run's insert carries it delivered. Stored: the lane's next delivery may go
      // now, and the record is written behind it; should that fail for good, the delivery stays pending
      // in the log and a restarted process sends it again, which at-least-once allows.
      if (tracked.stored === false) await this.record(tracked, () => delivered);
      else this.recordInBackground(tracked, delivered);
      return { done: true };
    }
    if (sent.status === 410) {
      // Management disables the webhook when it reads this notice; recorded before the log, so an
      // attempt retried after a failed record reports it once (same attempt number, same stream).
      const { appId, webhookId, deliveryId } = delivery;
      await this.deps.runner.run({
        decider: goneDecider,
        streamId: goneStreamId(appId, deliveryId, tracked.document.attempts + 1),
        command: { type: 'ReportGone', attempt: { appId, webhookId, deliveryId, attempt: tracked.document.attempts + 1, outcome: 'gone', ...facts } },
        metadata: commandMetadata({ actor: deliveryActor(appId), requestId: deliveryId }, new Date(now)),
        expectNew: true,
      });
    }
    const recorded = await this.record(tracked, (current) => {
      const round = roundOf(current);
      // A refused address stays refused: that attempt is the last (ADR 0038).
      const decision = decideRetry(
        sent.status,
        round.attemptInRound,
        round.roundStartedAt ?? now - sent.latencyMs,
        now,
        this.deps.retry,
        endpoint.webhook.retryOnFailure && sent.refused !== true,
      );
      return { ...facts, outcome: decision.outcome, ...(decision.nextAttemptAt !== undefined ? { nextAttemptAt: decision.nextAttemptAt } : {}) };
    });
    if (recorded?.outcome === 'gone') await this.deps.directory.markGone(delivery.appId, delivery.webhookId);
    return recorded?.outcome === 'retrying' && recorded.nextAttemptAt !== undefined ? { done: false, retryAt: recorded.nextAttemptAt } : { done: true };
  }

  private recordInBackground(tracked: Tracked, record: AttemptRecord): void {
    const write = (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          // A write reported lost (another id of its command lost) reads the delivery: found delivered, nothing is left to do.
          await this.record(tracked, () => record, (document, rev) => this.delivered.submit('delivered', { document, expectedRev: rev }));
          return;
        } catch (error) {
          if (attempt >= 5) {
            this.deps.logger.error({ err: error, deliveryId: tracked.delivery.deliveryId }, 'a delivered attempt could not be recorded; it stays pending');
            return;
          }
          await sleep(backoffDelay(attempt, RECORD_RETRY));
        }
      }
    })();
    this.recording.add(write);
    void write.finally(() => this.recording.delete(write));
  }

  /**
   * Records the next attempt, decided on the delivery as it stands (attempt numbers, retry window). Not
   * stored yet: the insert to come carries it. Stored: one write guarded by the document's `_rev`; a
   * write lost to another process reads the document again and decides again. Null when there is
   * nothing left to record (no longer pending: another process finished it).
   */
  private async record(
    tracked: Tracked,
    decide: (current: DeliveryDocument) => AttemptRecord,
    replace: (document: DeliveryDocument, expectedRev: number) => Promise<boolean> = (document, rev) => this.deps.log.replace(document, rev),
  ): Promise<AttemptRecord | null> {
    // An insert in flight decides whether this goes with the next insert or after it.
    while (tracked.stored instanceof Promise) await tracked.stored.catch(() => undefined);
    for (let race = 0; ; race++) {
      const record = decide(tracked.document);
      const next = afterAttempt(tracked.document, tracked.document.attempts + 1, record);
      if (!next) return null;
      if (tracked.stored !== true) {
        tracked.document = next;
        return record;
      }
      if (tracked.rev !== null && (await replace(next, tracked.rev))) {
        tracked.document = next;
        tracked.rev += 1;
        return record;
      }
      if (race >= RECORD_RACES) throw new Error(`delivery ${tracked.delivery.deliveryId} kept changing while its attempt was recorded`);
      const found = await this.deps.log.find(tracked.delivery.deliveryId);
      if (!found) return null;
      tracked.document = found.document;
      tracked.rev = found.rev;
    }
  }
}

/** What the dispatcher queues for a stored delivery. */
export function queuedOf(d: DeliveryDocument): QueuedDelivery {
  return {
    deliveryId: d.deliveryId,
    appId: d.appId,
    webhookId: d.webhookId,
    orderKey: d.orderKey,
    body: d.body,
    notBefore: d.status === 'pending' ? (d.nextAttemptAt ?? 0) : 0,
  };
}
