import type { NotificationOutcome } from '@chat/contracts';
import { Coalescer, backoffDelay } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { AttemptResult, QueuedDelivery } from '@chat/webhooks';
import type { ProviderAnswer, Providers } from '../adapters/providers/index.js';
import type { RecordedAttempt } from '../adapters/readModels.js';
import type { RetryPolicy } from '../config.js';
import type { AttemptRecord, NotificationDocument } from '../domain/notificationRecord.js';
import { recipientDecider, recipientStreamId } from '../domain/recipient.js';
import { providerOf } from './directory.js';
import type { AppDirectory } from './directory.js';
import { notifierActor } from './notifier.js';

/** A notification in the dispatcher: one lane per recipient device, one slot pool per provider. */
export function queuedOf(notification: NotificationDocument): QueuedDelivery {
  return {
    deliveryId: notification.notificationId,
    appId: notification.appId,
    webhookId: `${notification.provider ?? 'none'}:${notification.providerId ?? ''}`,
    orderKey: `${notification.recipient}:${notification.channel}:${notification.pushToken ?? ''}`,
    body: JSON.stringify(notification),
    notBefore: notification.nextAttemptAt ?? 0,
  };
}

/**
 * What an answer means: 2xx delivered; a dead token is final (and the token goes); a 4xx other than
 * 408/429 will not improve by retrying; anything else is retried with backoff until the attempts
 * run out.
 */
export function outcomeOf(answer: ProviderAnswer, attempt: number, policy: RetryPolicy): NotificationOutcome {
  const status = answer.status;
  if (status !== undefined && status >= 200 && status < 300) return 'delivered';
  if (answer.invalidToken) return 'invalidToken';
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) return 'failed';
  return attempt < policy.maxAttempts ? 'retrying' : 'failed';
}

/** Provider calls recorded in one write at most (the rest wait for the next). */
const ATTEMPTS_PER_RECORD = 500;

export interface DeliveryDeps {
  /** Removes a token a provider said is dead (the recipient's stream). */
  runner: CommandRunner;
  /** Stores provider calls, many at once (`NotificationReadModels.recordAttempts`). */
  recordAttempts(attempts: readonly RecordedAttempt[]): Promise<void>;
  directory: AppDirectory;
  providers: Providers;
  retry: RetryPolicy;
  clock?: () => number;
}

/**
 * Makes a provider call for a pending notification and records it. Calls that end while others are
 * being recorded are recorded together, in one write (ADR 0043); an attempt counts as made once it
 * is recorded, so the dispatcher's lane waits for that.
 */
export class Deliveries {
  private readonly clock: () => number;
  /** Calls made per notification still in the dispatcher (a retry's number follows from it). */
  private readonly attemptsMade = new Map<string, number>();
  private readonly recorder: Coalescer<RecordedAttempt, void>;

  constructor(private readonly deps: DeliveryDeps) {
    this.clock = deps.clock ?? Date.now;
    this.recorder = new Coalescer(async (_key, attempts) => {
      await deps.recordAttempts(attempts);
      return attempts.map(() => undefined);
    }, ATTEMPTS_PER_RECORD);
  }

  async attempt(queued: QueuedDelivery): Promise<AttemptResult> {
    const notification = JSON.parse(queued.body) as NotificationDocument;
    const entry = await this.deps.directory.get(notification.appId);
    const provider = notification.provider && notification.providerId ? providerOf(entry, notification.provider, notification.providerId) : undefined;
    const startedAt = this.clock();
    const answer: ProviderAnswer =
      provider && provider.settings['isEnabled'] !== false
        ? await this.deps.providers.send(notification, provider)
        : { error: 'the provider was removed or disabled after the notification was queued', latencyMs: 0, responsePrefix: '', status: 404 };
    const number = (this.attemptsMade.get(notification.notificationId) ?? notification.attempts) + 1;
    const outcome = outcomeOf(answer, number, this.deps.retry);
    const at = this.clock();
    const nextAttemptAt = outcome === 'retrying' ? at + backoffDelay(number, this.deps.retry) : undefined;
    const attempt: AttemptRecord = {
      attempt: number,
      outcome,
      ...(answer.status !== undefined ? { statusCode: answer.status } : {}),
      ...(answer.error !== undefined ? { error: answer.error.slice(0, 256) } : {}),
      responsePrefix: answer.responsePrefix,
      startedAt,
      at,
      ...(nextAttemptAt !== undefined ? { nextAttemptAt } : {}),
    };
    // A failed record throws to the dispatcher, which tries the call again: the same number, the same log entry.
    await this.recorder.submit('attempts', { notification, attempt, final: nextAttemptAt === undefined });
    if (nextAttemptAt === undefined) this.attemptsMade.delete(notification.notificationId);
    else this.attemptsMade.set(notification.notificationId, number);
    if (outcome === 'invalidToken' && notification.pushToken) await this.removeToken(notification);
    return nextAttemptAt === undefined ? { done: true } : { done: false, retryAt: nextAttemptAt };
  }

  private async removeToken(notification: NotificationDocument): Promise<void> {
    await this.deps.runner.run({
      decider: recipientDecider,
      streamId: recipientStreamId(notification.appId, notification.recipient),
      command: { type: 'RemoveTokens', uid: notification.recipient, tokens: [notification.pushToken!], reason: 'invalid', at: this.clock() },
      metadata: { appId: notification.appId, actor: notifierActor(notification.appId), correlationId: notification.notificationId, now: new Date(this.clock()) },
    });
  }
}
