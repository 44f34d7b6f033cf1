import type { NotificationOutcome } from '@chat/contracts';
import { FirstAnswerWait, receiverOf } from '@chat/delivery';
import type { AttemptResult, QueuedDelivery } from '@chat/delivery';
import { Coalescer, RecentlyUsed, backoffDelay, commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { HandedRun } from '@chat/kafka';
import type { ProviderAnswer, Providers } from '../adapters/providers/index.js';
import type { MessageRecord, RecordedAttempt } from '../adapters/readModels.js';
import { messageLogId } from '../domain/logPage.js';
import type { LogEntry } from '../domain/logPage.js';
import type { RetryPolicy } from '../config.js';
import { attemptLogEntry, logEntryId } from '../domain/notificationRecord.js';
import type { AttemptRecord, LogDocument, NotificationDocument } from '../domain/notificationRecord.js';
import { recipientDecider, recipientStreamId } from '../domain/recipient.js';
import { providerOf } from './directory.js';
import type { AppDirectory } from './directory.js';
import { notifierActor } from './notifier.js';

/** The provider a notification is sent through (a provider id is the app's own name for it). */
function providerKeyOf(notification: NotificationDocument): string {
  return `${notification.provider ?? 'none'}:${notification.providerId ?? ''}`;
}

/** Whom a run waits for: the app's provider, as the dispatcher keys its slots. */
function providerOfApp(notification: NotificationDocument): string {
  return receiverOf({ appId: notification.appId, webhookId: providerKeyOf(notification) });
}

/**
 * A notification in the dispatcher: one lane per recipient device, one slot pool per provider. The
 * notification itself stays in `Deliveries` (the body is not read back).
 */
export function queuedOf(notification: NotificationDocument): QueuedDelivery {
  return {
    deliveryId: notification.notificationId,
    appId: notification.appId,
    webhookId: providerKeyOf(notification),
    orderKey: `${notification.recipient}:${notification.channel}:${notification.pushToken ?? ''}`,
    body: '',
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

/** Messages this process recorded or a check found recorded (ADR 0062): about a minute of messages at the rates measured. */
const KEPT_DECIDED_MESSAGES = 20_000;

export interface DeliveryDeps {
  /** Removes a token a provider said is dead (the recipient's stream). */
  runner: CommandRunner;
  /** What of a run was decided before (`NotificationReadModels.decidedBefore`). */
  decidedBefore(messages: ReadonlyArray<{ appId: string; messageId: string }>, notificationIds: readonly string[]): Promise<{ messages: Set<string>; sends: Set<string> }>;
  /** Stores a run's log documents, one per message, and the sends still pending (`NotificationReadModels.recordRun`). */
  recordRun(messages: readonly MessageRecord[], pending: readonly NotificationDocument[], decidedAt: number): Promise<void>;
  /** Stores provider calls of stored notifications, many at once (`NotificationReadModels.recordAttempts`). */
  recordAttempts(attempts: readonly RecordedAttempt[]): Promise<void>;
  /** Hands a notification to the dispatcher. */
  dispatch(queued: QueuedDelivery): void;
  directory: AppDirectory;
  providers: Providers;
  retry: RetryPolicy;
  /** How long a run waits for its sends' first calls before it stores the rest as pending. */
  firstAttemptWaitMs: number;
  clock?: () => number;
}

/** A notification this process has in the dispatcher. */
interface Tracked {
  notification: NotificationDocument;
  /** Calls made so far (a retry's number follows from it). */
  attempts: number;
  /** When the last call asked to be retried. */
  nextAttemptAt?: number;
  /** false: decided but not stored yet; a promise: its run's record is being written; true: stored pending. */
  stored: boolean | Promise<void>;
  /** Calls made while not stored: the run's record carries them. */
  unrecorded: AttemptRecord[];
  /** Resolves once its first call has an answer (a notification decided by this process). */
  attempted?: Promise<void>;
  markAttempted?: () => void;
  /** Delivered or given up: forgotten once its record is stored. */
  finished: boolean;
}

/**
 * Makes provider calls and records them (ADR 0043, 0049). A run's new sends go to the dispatcher at
 * once, unstored; the run waits up to `firstAttemptWaitMs` for their first calls (not for a provider
 * that answers slower, ADR 0158), then writes one insert of log entries (its skips and the calls
 * answered) and one of the sends still to be made or retried — so a send answered within the wait is
 * never stored as pending. A call on a stored notification is recorded with the others that end while
 * a record is being written, in one write.
 */
export class Deliveries {
  private readonly clock: () => number;
  /** Notifications in the dispatcher, by id. */
  private readonly tracked = new Map<string, Tracked>();
  private readonly recorder: Coalescer<RecordedAttempt, void>;
  /**
   * Messages known decided: recorded here, or found recorded by a check. Kafka may carry an event
   * twice at two offsets (ADR 0008: a stream's journal published by the next commit's replica), the
   * second copy a first delivery to the consumer (not checked against the store), usually within a
   * second of the first and on the same partition.
   */
  private readonly knownDecided = new RecentlyUsed<string, true>(KEPT_DECIDED_MESSAGES);

  /** Which providers a run waits for (one answering slower than the window would hold every run, ADR 0158). */
  private readonly firstAnswers: FirstAnswerWait;

  constructor(private readonly deps: DeliveryDeps) {
    this.clock = deps.clock ?? Date.now;
    this.firstAnswers = new FirstAnswerWait(deps.firstAttemptWaitMs);
    this.recorder = new Coalescer(async (_key, attempts) => {
      await deps.recordAttempts(attempts);
      return attempts.map(() => undefined);
    }, ATTEMPTS_PER_RECORD);
  }

  /** A stored pending notification (read at start) handed to the dispatcher. */
  resume(notification: NotificationDocument): void {
    if (this.tracked.has(notification.notificationId)) return;
    this.tracked.set(notification.notificationId, {
      notification,
      attempts: notification.attempts,
      ...(notification.nextAttemptAt !== undefined ? { nextAttemptAt: notification.nextAttemptAt } : {}),
      stored: true,
      unrecorded: [],
      finished: false,
    });
    this.deps.dispatch(queuedOf(notification));
  }

  /**
   * Makes a run's decisions durable before the consumer moves on: new sends dispatched at once, then
   * per message one log document (its skips and what its sends came to within the wait) and the
   * sends still pending, stored together. A message recorded before (its log document is there) is
   * not recorded or sent again, nor is a send whose first call an older build logged, or one still
   * in hand here (the run came again after a failed record: this run stores it). The store is asked
   * only for a run the consumer says may be a repeat (ADR 0062): a first delivery cannot have been
   * recorded, except as a second copy of an event this process recorded (`knownDecided`).
   */
  async take(skipped: readonly LogDocument[], sends: readonly NotificationDocument[], run: HandedRun = { mayRepeat: true }): Promise<void> {
    const messages = new Map<string, { appId: string; messageId: string; skipped: LogDocument[]; sends: NotificationDocument[] }>();
    const messageOf = (d: { appId: string; messageId: string }) => {
      const id = messageLogId(d.appId, d.messageId);
      let m = messages.get(id);
      if (!m) messages.set(id, (m = { appId: d.appId, messageId: d.messageId, skipped: [], sends: [] }));
      return m;
    };
    for (const entry of skipped) messageOf(entry).skipped.push(entry);
    const unique = new Map(sends.map((n) => [n.notificationId, n]));
    for (const n of unique.values()) messageOf(n).sends.push(n);
    const inHand = [...messages.values()];
    const decided = run.mayRepeat
      ? await this.decidedBefore(inHand, [...unique.keys()].filter((id) => !this.tracked.has(id)))
      : { messages: this.knownOf(inHand), sends: new Set<string>() };
    const taken: Tracked[] = [];
    for (const [id, m] of messages) {
      if (decided.messages.has(id)) {
        // Recorded already (by a record whose answer was lost): what is in hand of it is stored. One
        // whose record is still being written is left to that write.
        for (const n of m.sends) {
          const t = this.tracked.get(n.notificationId);
          if (t?.stored === false) this.markStored(t);
        }
        messages.delete(id);
        continue;
      }
      for (const notification of m.sends) {
        const t = this.tracked.get(notification.notificationId);
        if (t) {
          if (t.stored !== true) taken.push(t);
          continue;
        }
        if (decided.sends.has(notification.notificationId)) continue;
        let markAttempted!: () => void;
        const attempted = new Promise<void>((resolve) => (markAttempted = resolve));
        const fresh: Tracked = { notification, attempts: 0, stored: false, unrecorded: [], attempted, markAttempted, finished: false };
        this.tracked.set(notification.notificationId, fresh);
        taken.push(fresh);
        this.deps.dispatch(queuedOf(notification));
      }
    }
    if (messages.size === 0) return;
    await this.firstAnswers.wait(taken.map((t) => ({ receiver: providerOfApp(t.notification), answered: t.attempted ?? Promise.resolve() })));
    // A record begun by an earlier call for the same run is waited for, not repeated.
    await Promise.all(taken.map((t) => (t.stored instanceof Promise ? t.stored.catch(() => undefined) : Promise.resolve())));
    const fresh = taken.filter((t) => t.stored === false);
    const records: MessageRecord[] = [...messages.values()].map((m) => ({
      appId: m.appId,
      messageId: m.messageId,
      entries: [
        ...m.skipped.map((entry): LogEntry => ({ ...entry, _id: logEntryId(entry.notificationId, null) })),
        ...m.sends.flatMap((n) => {
          const t = this.tracked.get(n.notificationId);
          if (!t || t.stored !== false) return [];
          return t.unrecorded.map((attempt) => attemptLogEntry(t.notification, attempt));
        }),
      ],
    }));
    const pending = fresh
      .filter((t) => !t.finished)
      .map((t): NotificationDocument => ({ ...t.notification, attempts: t.attempts, ...(t.nextAttemptAt !== undefined ? { nextAttemptAt: t.nextAttemptAt } : {}) }));
    const recording = this.deps.recordRun(records, pending, this.clock());
    const written = recording.then(() => undefined);
    // Its failure is reported below; calls waiting on it only need to know when it settled.
    written.catch(() => undefined);
    for (const t of fresh) t.stored = written;
    try {
      await recording;
    } catch (error) {
      for (const t of fresh) if (t.stored === written) t.stored = false;
      throw error;
    }
    for (const t of fresh) this.markStored(t);
    for (const id of messages.keys()) this.knownDecided.set(id, true);
  }

  /** The store's answer, and the messages this process knows decided. */
  private async decidedBefore(messages: ReadonlyArray<{ appId: string; messageId: string }>, notificationIds: readonly string[]): Promise<{ messages: Set<string>; sends: Set<string> }> {
    const decided = await this.deps.decidedBefore(messages, notificationIds);
    for (const id of decided.messages) this.knownDecided.set(id, true);
    for (const id of this.knownOf(messages)) decided.messages.add(id);
    return decided;
  }

  /** The log ids of those messages this process knows decided. */
  private knownOf(messages: ReadonlyArray<{ appId: string; messageId: string }>): Set<string> {
    const known = new Set<string>();
    for (const m of messages) {
      const id = messageLogId(m.appId, m.messageId);
      if (this.knownDecided.has(id)) known.add(id);
    }
    return known;
  }

  private markStored(t: Tracked): void {
    t.stored = true;
    t.unrecorded = [];
    if (t.finished) this.tracked.delete(t.notification.notificationId);
  }

  async attempt(queued: QueuedDelivery): Promise<AttemptResult> {
    const tracked = this.tracked.get(queued.deliveryId);
    if (!tracked || tracked.finished) return { done: true };
    const { notification } = tracked;
    const entry = await this.deps.directory.get(notification.appId);
    const provider = notification.provider && notification.providerId ? providerOf(entry, notification.provider, notification.providerId) : undefined;
    const startedAt = this.clock();
    const answer: ProviderAnswer =
      provider && provider.settings['isEnabled'] !== false
        ? await this.deps.providers.send(notification, provider)
        : { error: 'the provider was removed or disabled after the notification was queued', latencyMs: 0, responsePrefix: '', status: 404 };
    this.firstAnswers.answered(providerOfApp(notification), answer.latencyMs);
    const number = tracked.attempts + 1;
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
    const final = nextAttemptAt === undefined;
    // Its run's record being written: this call is recorded after it (a delete before the insert would leave it pending).
    if (tracked.stored instanceof Promise) await tracked.stored.catch(() => undefined);
    if (tracked.stored === true) {
      // A failed record throws to the dispatcher, which tries the call again: the same number, the same log entry.
      await this.recorder.submit('attempts', { notification, attempt, final });
    } else {
      // Not stored yet: its run's record carries this call (and, unless final, the notification as pending).
      tracked.unrecorded.push(attempt);
    }
    tracked.attempts = number;
    if (nextAttemptAt !== undefined) tracked.nextAttemptAt = nextAttemptAt;
    if (final) {
      tracked.finished = true;
      if (tracked.stored === true) this.tracked.delete(notification.notificationId);
    }
    tracked.markAttempted?.();
    if (outcome === 'invalidToken' && notification.pushToken) await this.removeToken(notification);
    return final ? { done: true } : { done: false, retryAt: nextAttemptAt };
  }

  private async removeToken(notification: NotificationDocument): Promise<void> {
    await this.deps.runner.run({
      decider: recipientDecider,
      streamId: recipientStreamId(notification.appId, notification.recipient),
      command: { type: 'RemoveTokens', uid: notification.recipient, tokens: [notification.pushToken!], reason: 'invalid', at: this.clock() },
      metadata: commandMetadata({ actor: notifierActor(notification.appId), requestId: notification.notificationId }, new Date(this.clock())),
    });
  }
}
