import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { webhookSignature } from '@chat/contracts';
import type { Actor, KnownEvent } from '@chat/contracts';
import { backoffDelay } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { Logger } from 'pino';
import type { HttpSender } from '../adapters/httpSender.js';
import { deliveryDecider, deliveryStreamId } from '../domain/delivery.js';
import type { DeliveryCommand } from '../domain/delivery.js';
import { decideRetry } from '../domain/retrySchedule.js';
import type { RetryPolicy } from '../domain/retrySchedule.js';
import { triggerOf, webhookBody } from '../domain/triggers.js';
import type { WebhookDirectory } from './directory.js';
import type { AttemptResult, QueuedDelivery } from './dispatcher.js';

/** How a delivered attempt's record is retried when the store refuses it for a moment. */
const RECORD_RETRY = { baseMs: 200, maxMs: 5_000 };

/** The delivery process acts as itself in the events it records. */
const deliveryActor = (appId: string): Actor => ({ appId, keyId: 'webhooks', scope: 'management' });

export interface DeliveryDeps {
  runner: CommandRunner;
  directory: WebhookDirectory;
  sender: HttpSender;
  retry: RetryPolicy;
  region: string;
  logger: Logger;
  clock?: () => number;
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

  constructor(private readonly deps: DeliveryDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** Waits for the records of successful attempts still being written (at stop). */
  async drain(): Promise<void> {
    await Promise.all(this.recording);
  }

  /**
   * The deliveries a run of source events causes, queued in the store (concurrently: the runner
   * groups them into few appends) and returned in event order for the dispatcher.
   */
  async queue(events: readonly KnownEvent[]): Promise<QueuedDelivery[]> {
    const planned: { delivery: QueuedDelivery; command: DeliveryCommand; event: KnownEvent }[] = [];
    for (const event of events) {
      const match = triggerOf(event);
      if (!match) continue;
      for (const { webhook } of await this.deps.directory.subscribers(event.appId, match.trigger)) {
        const deliveryId = deliveryIdOf(webhook.webhookId, event.id);
        const body = webhookBody(match, event.appId, this.deps.region, webhook.webhookId);
        const queuedAt = this.clock();
        const delivery = { deliveryId, appId: event.appId, webhookId: webhook.webhookId, orderKey: event.streamId, body, notBefore: 0 };
        const command: DeliveryCommand = {
          type: 'Queue',
          delivery: {
            appId: event.appId,
            webhookId: webhook.webhookId,
            deliveryId,
            trigger: match.trigger,
            sourceEventId: event.id,
            orderKey: event.streamId,
            sourceVersion: event.version,
            body,
            occurredAt: Date.parse(event.occurredAt),
            queuedAt,
          },
        };
        planned.push({ delivery, command, event });
      }
    }
    const queued = await Promise.all(
      planned.map(async ({ delivery, command, event }) => {
        const result = await this.deps.runner.run({
          decider: deliveryDecider,
          streamId: deliveryStreamId(delivery.appId, delivery.deliveryId),
          command,
          metadata: { appId: delivery.appId, actor: deliveryActor(delivery.appId), correlationId: event.correlationId, causationId: event.id, now: new Date() },
          // A delivery id is new unless Kafka redelivers its event: no store read for the usual case.
          expectNew: true,
        });
        return result.events.length > 0 ? delivery : null;
      }),
    );
    return queued.filter((d): d is QueuedDelivery => d !== null);
  }

  /** One attempt: signed POST, then its outcome recorded; a disabled webhook's delivery is closed unsent. */
  async attempt(delivery: QueuedDelivery): Promise<AttemptResult> {
    const endpoint = await this.deps.directory.deliverable(delivery.appId, delivery.webhookId);
    if (!endpoint) {
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
      // Delivered: the lane's next delivery may go now. Its record is written behind it (grouped
      // with the others); should that fail for good, the delivery stays pending in the store and a
      // restarted process sends it again, which at-least-once allows.
      this.recordInBackground(delivery, sent);
      return { done: true };
    }
    const decision = await this.record(
      delivery,
      (roundAttempts, roundStartedAt) =>
        decideRetry(sent.status, roundAttempts, roundStartedAt ?? now - sent.latencyMs, now, this.deps.retry, endpoint.webhook.retryOnFailure),
      sent,
    );
    if (decision.outcome === 'gone') await this.deps.directory.markGone(delivery.appId, delivery.webhookId);
    return decision.outcome === 'retrying' && decision.nextAttemptAt !== undefined ? { done: false, retryAt: decision.nextAttemptAt } : { done: true };
  }

  private recordInBackground(delivery: QueuedDelivery, sent: { status?: number; latencyMs: number; responsePrefix: string }): void {
    const write = (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
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
