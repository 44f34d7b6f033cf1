import type { NotificationOutcome } from '@chat/contracts';
import { backoffDelay } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { AttemptResult, QueuedDelivery } from '@chat/webhooks';
import type { ProviderAnswer, Providers } from '../adapters/providers/index.js';
import type { RetryPolicy } from '../config.js';
import { notificationDecider, notificationStreamId } from '../domain/notification.js';
import type { NotificationCommand } from '../domain/notification.js';
import { recipientDecider, recipientStreamId } from '../domain/recipient.js';
import type { NotificationDocument } from '../projections/notifications.js';
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

export interface DeliveryDeps {
  runner: CommandRunner;
  directory: AppDirectory;
  providers: Providers;
  retry: RetryPolicy;
  clock?: () => number;
}

/** Makes a provider call for a queued notification and records it on the notification's stream. */
export class Deliveries {
  private readonly clock: () => number;

  constructor(private readonly deps: DeliveryDeps) {
    this.clock = deps.clock ?? Date.now;
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
    // Decided inside the command, on the stream's current attempt count.
    const decided: { outcome: NotificationOutcome; nextAttemptAt?: number | undefined } = { outcome: 'failed' };
    await this.deps.runner.run({
      decider: notificationDecider,
      streamId: notificationStreamId(notification.appId, notification.notificationId),
      command: (state): NotificationCommand => {
        const attempt = state.status === 'absent' ? 1 : state.attempts + 1;
        const outcome = outcomeOf(answer, attempt, this.deps.retry);
        const at = this.clock();
        const nextAttemptAt = outcome === 'retrying' ? at + backoffDelay(attempt, this.deps.retry) : undefined;
        decided.outcome = outcome;
        decided.nextAttemptAt = nextAttemptAt;
        return {
          type: 'RecordAttempt',
          attempt: {
            attempt,
            outcome,
            ...(answer.status !== undefined ? { statusCode: answer.status } : {}),
            ...(answer.error !== undefined ? { error: answer.error.slice(0, 256) } : {}),
            responsePrefix: answer.responsePrefix,
            startedAt,
            at,
            ...(nextAttemptAt !== undefined ? { nextAttemptAt } : {}),
          },
        };
      },
      metadata: { appId: notification.appId, actor: notifierActor(notification.appId), correlationId: notification.notificationId, now: new Date(this.clock()) },
    });
    if (decided.outcome === 'invalidToken' && notification.pushToken) await this.removeToken(notification);
    return decided.outcome === 'retrying' && decided.nextAttemptAt !== undefined ? { done: false, retryAt: decided.nextAttemptAt } : { done: true };
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
