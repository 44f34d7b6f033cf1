import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { webhookSignature } from '@chat/contracts';
import type { Actor, DeliveryQueued, KnownEvent } from '@chat/contracts';
import type { OutboundHttp } from '@chat/delivery';
import { RecentlyUsed, backoffDelay } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { Logger } from 'pino';
import { deliveryDecider, deliveryStreamId } from '../domain/delivery.js';
import type { DeliveryCommand } from '../domain/delivery.js';
import { decideRetry } from '../domain/retrySchedule.js';
import type { RetryPolicy } from '../domain/retrySchedule.js';
import { triggerOf, webhookBody } from '../domain/triggers.js';
import type { WebhookDirectory } from './directory.js';
import type { AttemptResult, QueuedDelivery } from './dispatcher.js';

/**
 * Delivery ids this process planned that it still recognises. Kafka may carry an event twice: when
 * consecutive commits of a stream come from two replicas, the second publishes what it finds of the
 * first still unreleased in the journal before its own commit (ADR 0008), usually within a second of
 * the first's own publish. Recognising those ids keeps the receiver from a second POST of a delivery
 * already made.
 */
const RECENTLY_PLANNED = 100_000;

/** How a delivered attempt's record is retried when the store refuses it for a moment. */
const RECORD_RETRY = { baseMs: 200, maxMs: 5_000 };

/** The delivery process acts as itself in the events it records. */
const deliveryActor = (appId: string): Actor => ({ appId, keyId: 'webhooks', scope: 'management' });

export interface DeliveryDeps {
  runner: CommandRunner;
  directory: WebhookDirectory;
  sender: OutboundHttp;
  retry: RetryPolicy;
  region: string;
  logger: Logger;
  /** How long a run of new source events waits for first attempts before it stores the rest as queued. */
  firstAttemptWaitMs: number;
  clock?: () => number;
}

/**
 * A delivery planned from a new source event and handed to the dispatcher before it is stored. If its
 * first attempt succeeds before the run is secured, it is stored once, queued and delivered together.
 */
interface Unstored {
  delivery: QueuedDelivery;
  queued: DeliveryQueued;
  event: KnownEvent;
  /** The write that stores it, once one has begun (queued alone, or queued and delivered). */
  stored: Promise<void> | null;
  /** Resolves when its first attempt has an answer. */
  attempted: Promise<void>;
  markAttempted: () => void;
}

/** The same (webhook, event) always gets the same delivery id, so a redelivered event is queued once. */
export function deliveryIdOf(webhookId: string, eventId: string): string {
  return createHash('sha256').update(`${webhookId}\n${eventId}`).digest('hex').slice(0, 32);
}

/**
 * Queues a delivery per matching webhook for each source event, and makes and records attempts.
 * Every state change is a command on the delivery's stream, so the log and the pending work survive
 * a restart.
 */
export class Deliveries {
  private readonly clock: () => number;
  /** Records of successful attempts still being written. */
  private readonly recording = new Set<Promise<void>>();
  /** Planned deliveries not yet stored, by delivery id. */
  private readonly unstored = new Map<string, Unstored>();
  /** Ids of the last RECENTLY_PLANNED deliveries planned here. */
  private readonly recentlyPlanned = new RecentlyUsed<string, true>(RECENTLY_PLANNED);

  constructor(private readonly deps: DeliveryDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** Waits for the records of successful attempts still being written (at stop). */
  async drain(): Promise<void> {
    await Promise.all(this.recording);
  }

  /** Each (matching webhook, source event) pair as a delivery and the record that queues it. */
  private async planned(events: readonly KnownEvent[]): Promise<Array<{ delivery: QueuedDelivery; queued: DeliveryQueued; event: KnownEvent }>> {
    const planned: Array<{ delivery: QueuedDelivery; queued: DeliveryQueued; event: KnownEvent }> = [];
    for (const event of events) {
      const match = triggerOf(event);
      if (!match) continue;
      for (const { webhook } of await this.deps.directory.subscribers(event.appId, match.trigger, Date.parse(event.occurredAt))) {
        const deliveryId = deliveryIdOf(webhook.webhookId, event.id);
        const body = webhookBody(match, event.appId, this.deps.region, webhook.webhookId);
        const delivery = { deliveryId, appId: event.appId, webhookId: webhook.webhookId, orderKey: event.streamId, body, notBefore: 0 };
        const queued: DeliveryQueued = {
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
        };
        planned.push({ delivery, queued, event });
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
    const queued = await Promise.all(
      (await this.planned(events)).map(async ({ delivery, queued: record, event }) => {
        const appended = await this.store(delivery, event, { type: 'Queue', delivery: record });
        return appended ? delivery : null;
      }),
    );
    return queued.filter((d): d is QueuedDelivery => d !== null);
  }

  /**
   * New source events: their deliveries go to the dispatcher at once, unstored; `secure` then stores
   * them before the consumer moves on. A delivery already planned and not yet stored (the run came
   * again after a failed `secure`) is returned as it is, not planned twice; one planned and stored
   * already (the same event again on Kafka) is not returned at all.
   */
  async plan(events: readonly KnownEvent[]): Promise<QueuedDelivery[]> {
    const deliveries: QueuedDelivery[] = [];
    for (const { delivery, queued, event } of await this.planned(events)) {
      const known = this.unstored.get(delivery.deliveryId);
      if (known) {
        deliveries.push(known.delivery);
        continue;
      }
      if (this.recentlyPlanned.has(delivery.deliveryId)) continue;
      this.recentlyPlanned.set(delivery.deliveryId, true);
      let markAttempted!: () => void;
      const attempted = new Promise<void>((resolve) => (markAttempted = resolve));
      this.unstored.set(delivery.deliveryId, { delivery, queued, event, stored: null, attempted, markAttempted });
      deliveries.push(delivery);
    }
    return deliveries;
  }

  /**
   * Makes planned deliveries durable: waits up to `firstAttemptWaitMs` for their first attempts (each
   * one answered 2xx by then has stored itself as queued and delivered, one document), then stores the
   * others as queued, and waits for all of it.
   */
  async secure(deliveries: readonly QueuedDelivery[]): Promise<void> {
    const pending = deliveries.map((d) => this.unstored.get(d.deliveryId)).filter((u): u is Unstored => u !== undefined);
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(pending.map((u) => u.attempted)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, this.deps.firstAttemptWaitMs))),
    ]);
    clearTimeout(timer);
    await Promise.all(pending.map((u) => this.storeQueued(u)));
  }

  /** Stores an unstored delivery as queued (once; a write that fails may be tried again). */
  private storeQueued(unstored: Unstored): Promise<void> {
    unstored.stored ??= this.storeOnce(unstored, { type: 'Queue', delivery: unstored.queued });
    return unstored.stored;
  }

  private storeOnce(unstored: Unstored, command: DeliveryCommand): Promise<void> {
    const write = this.store(unstored.delivery, unstored.event, command).then(
      () => {
        this.unstored.delete(unstored.delivery.deliveryId);
      },
      (error: unknown) => {
        if (unstored.stored === write) unstored.stored = null;
        throw error;
      },
    );
    return write;
  }

  /** Appends a command to a new delivery's stream; true when it appended events. */
  private async store(delivery: QueuedDelivery, event: KnownEvent, command: DeliveryCommand): Promise<boolean> {
    const result = await this.deps.runner.run({
      decider: deliveryDecider,
      streamId: deliveryStreamId(delivery.appId, delivery.deliveryId),
      command,
      metadata: { appId: delivery.appId, actor: deliveryActor(delivery.appId), correlationId: event.correlationId, causationId: event.id, now: new Date() },
      // A delivery id is new unless Kafka redelivers its event: no store read for the usual case.
      expectNew: true,
    });
    return result.events.length > 0;
  }

  /** One attempt: signed POST, then its outcome recorded; a disabled webhook's delivery is closed unsent. */
  async attempt(delivery: QueuedDelivery): Promise<AttemptResult> {
    const unstored = this.unstored.get(delivery.deliveryId);
    try {
      return await this.attemptOnce(delivery, unstored);
    } finally {
      unstored?.markAttempted();
    }
  }

  private async attemptOnce(delivery: QueuedDelivery, unstored: Unstored | undefined): Promise<AttemptResult> {
    const endpoint = await this.deps.directory.deliverable(delivery.appId, delivery.webhookId);
    if (!endpoint) {
      if (unstored) await this.storeQueued(unstored);
      await this.record(delivery, () => ({ outcome: 'failed' }), { error: 'webhook disabled, deleted, or its app deleted', latencyMs: 0, responsePrefix: '' });
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
    const now = this.clock();
    if (sent.status !== undefined && sent.status >= 200 && sent.status < 300) {
      if (unstored && unstored.stored === null) {
        // Not stored yet: one commit records it queued and delivered; `secure` waits for it.
        const { status, ...facts } = sent;
        unstored.stored = this.storeOnce(unstored, {
          type: 'QueueDelivered',
          delivery: unstored.queued,
          attempt: { outcome: 'delivered', statusCode: status, ...facts, at: now },
        });
        // Its failure is `secure`'s to report (the run is consumed again); here only the lane moves on.
        unstored.stored.catch(() => undefined);
        return { done: true };
      }
      // Delivered: the lane's next delivery may go now. Its record is written behind it (grouped
      // with the others, after the delivery's queued record); should that fail for good, the
      // delivery stays pending in the store and a restarted process sends it again, which
      // at-least-once allows.
      this.recordInBackground(delivery, sent, unstored);
      return { done: true };
    }
    if (unstored) await this.storeQueued(unstored);
    const decision = await this.record(
      delivery,
      (roundAttempts, roundStartedAt) =>
        // A refused address stays refused: that attempt is the last (ADR 0038).
        decideRetry(sent.status, roundAttempts, roundStartedAt ?? now - sent.latencyMs, now, this.deps.retry, endpoint.webhook.retryOnFailure && sent.refused !== true),
      sent,
    );
    if (decision.outcome === 'gone') await this.deps.directory.markGone(delivery.appId, delivery.webhookId);
    return decision.outcome === 'retrying' && decision.nextAttemptAt !== undefined ? { done: false, retryAt: decision.nextAttemptAt } : { done: true };
  }

  private recordInBackground(delivery: QueuedDelivery, sent: { status?: number; latencyMs: number; responsePrefix: string }, unstored?: Unstored): void {
    const write = (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          // The attempt is recorded on the stored delivery (stored by now, or stored here).
          if (unstored) await this.storeQueued(unstored);
          await this.record(delivery, () => ({ outcome: 'delivered' }), sent);
          return;
        } catch (error) {
          if (attempt >= 5) {
            this.deps.logger.error({ err: error, deliveryId: delivery.deliveryId }, 'a delivered attempt could not be recorded; it stays pending');
            return;
          }
          await sleep(backoffDelay(attempt, RECORD_RETRY));
        }
      }
    })();
    this.recording.add(write);
    void write.finally(() => this.recording.delete(write));
  }

  /** Records the attempt; the decision is made on the stream's current state (attempt numbers, window). */
  private async record(
    delivery: QueuedDelivery,
    decide: (roundAttempts: number, roundStartedAt: number | null) => ReturnType<typeof decideRetry>,
    sent: { status?: number; error?: string; latencyMs: number; responsePrefix: string },
  ): Promise<ReturnType<typeof decideRetry>> {
    let decision: ReturnType<typeof decideRetry> = { outcome: 'failed' };
    await this.deps.runner.run({
      decider: deliveryDecider,
      streamId: deliveryStreamId(delivery.appId, delivery.deliveryId),
      command: (state): DeliveryCommand => {
        // Never queued (cannot happen for a delivery the store listed): a Requeue of nothing is a no-op.
        if (state.status === 'absent') return { type: 'Requeue', at: this.clock() };
        decision = decide(state.roundAttempts + 1, state.roundStartedAt);
        return {
          type: 'RecordAttempt',
          attempt: {
            attempt: state.attempts + 1,
            outcome: decision.outcome,
            ...(sent.status !== undefined ? { statusCode: sent.status } : {}),
            ...(sent.error !== undefined ? { error: sent.error.slice(0, 256) } : {}),
            latencyMs: sent.latencyMs,
            responsePrefix: sent.responsePrefix,
            ...(decision.nextAttemptAt !== undefined ? { nextAttemptAt: decision.nextAttemptAt } : {}),
            at: this.clock(),
          },
        };
      },
      metadata: { appId: delivery.appId, actor: deliveryActor(delivery.appId), correlationId: delivery.deliveryId, now: new Date() },
    });
    return decision;
  }
}
