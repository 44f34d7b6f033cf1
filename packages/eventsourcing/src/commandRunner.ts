import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, currentSchemaVersion } from '@chat/contracts';
import type { Actor, EventEnvelope } from '@chat/contracts';
import { backoffDelay } from './backoff.js';
import type { Backoff } from './backoff.js';
import { Coalescer } from './coalescer.js';
import { fold } from './decider.js';
import type { Decider, DomainEvent } from './decider.js';
import { GroupCommitter } from './groupCommit.js';
import type { GroupCommitOptions } from './groupCommit.js';
import { Outbox } from './outbox.js';
import type { OutboxLogger, OutboxOptions } from './outbox.js';
import type { CommitStore, EventPublisher, StreamHead } from './store.js';
import { StreamHeads } from './streamHeads.js';

/** Who asked, and why: copied into every envelope the command produces. */
export interface CommandMetadata {
  appId: string;
  actor: Actor;
  correlationId: string;
  /** The event this command reacts to, when it does. */
  causationId?: string | null;
  now: Date;
}

export interface CommandResult<State> {
  /** State after the command (unchanged when it produced no events). */
  state: State;
  /** The envelopes appended, in order; empty for an idempotent no-op. */
  events: EventEnvelope[];
  version: number;
}

export interface CommandRequest<State, Command, Event extends DomainEvent> {
  decider: Decider<State, Command, Event>;
  streamId: string;
  /**
   * The command, or how to build it. A builder runs again on every attempt, so facts the decision
   * needs (read from read models) are re-read after a conflict instead of deciding on a stale world.
   */
  command: Command | ((state: State) => Command | Promise<Command>);
  metadata: CommandMetadata;
  /** Called once the events are stored, before read models see them (e.g. to invalidate caches). */
  onAppended?: (events: readonly EventEnvelope[]) => Promise<void>;
  /**
   * The caller expects a stream nobody has written yet (a fresh id per item, like a webhook
   * delivery): the first attempt decides on the initial state without reading the store. If the
   * stream existed after all, the append conflicts and the retry reads it as usual.
   */
  expectNew?: boolean;
}

/** The service's own read models: applied before a command answers (read-your-writes). */
export interface OwnReadModels {
  apply(events: readonly EventEnvelope[]): Promise<void>;
}

export interface CommandRunnerOptions {
  store: CommitStore;
  publisher: EventPublisher;
  readModels: OwnReadModels;
  logger: OutboxLogger;
  /** How many times a command is re-decided after losing an append race. */
  maxAttempts?: number;
  conflictBackoff?: Backoff;
  groupCommit?: GroupCommitOptions;
  outbox?: OutboxOptions;
  /** How often changed stream heads are saved. */
  headSaveIntervalMs?: number;
}

function isBuilder<State, Command>(command: unknown): command is (state: State) => Command | Promise<Command> {
  return typeof command === 'function';
}

/**
 * The one way state changes, for every service: load (cached head, snapshot or fold) → build the
 * command from fresh facts → decide → group-commit the append → hand it to the ordered outbox →
 * apply the events to the service's own read models (grouped with concurrent commands) → answer.
 * A conflict waits for the winner's read-your-writes to land, then retries with backoff and jitter.
 */
export class CommandRunner {
  private readonly heads: StreamHeads;
  private readonly outbox: Outbox;
  private readonly committer: GroupCommitter;
  private readonly ownApplies: Coalescer<readonly EventEnvelope[], undefined>;
  /** Per stream, the commands of this process between their append and their read-your-writes. */
  private readonly inFlight = new Map<string, Set<Promise<unknown>>>();
  private readonly maxAttempts: number;
  private readonly conflictBackoff: Backoff;
  private headTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: CommandRunnerOptions) {
    this.heads = new StreamHeads(options.store);
    this.outbox = new Outbox(options.store, options.publisher, options.logger, options.outbox);
    this.committer = new GroupCommitter(options.store, this.outbox, options.groupCommit);
    this.ownApplies = new Coalescer(async (_key, groups) => {
      await options.readModels.apply(groups.flat());
      return groups.map(() => undefined);
    });
    this.maxAttempts = options.maxAttempts ?? 8;
    this.conflictBackoff = options.conflictBackoff ?? { baseMs: 5, maxMs: 200 };
  }

  /** Republishes what a crashed predecessor left unpublished; call before taking traffic. */
  async start(): Promise<void> {
    await this.outbox.recover();
    const interval = this.options.headSaveIntervalMs ?? 2_000;
    this.headTimer = setInterval(() => {
      this.heads.save().catch((error: unknown) => this.options.logger.warn({ err: error }, 'saving stream heads failed; will retry'));
    }, interval);
    this.headTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.headTimer) clearInterval(this.headTimer);
    await this.outbox.stop();
    await this.heads.save().catch((error: unknown) => this.options.logger.warn({ err: error }, 'saving stream heads failed at stop'));
  }

  /** Appended events not yet known to be on Kafka. */
  get publishBacklog(): number {
    return this.outbox.backlog;
  }

  /** A stream's current state and version, for queries that answer from the write side. */
  async load<State, Event extends DomainEvent>(
    decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve' | 'snapshotVersion'>,
    streamId: string,
    thorough = false,
  ): Promise<{ state: State; version: number }> {
    const cached = thorough ? undefined : this.heads.get(streamId);
    const head: StreamHead | null = cached ?? (await this.options.store.readHead(streamId, { thorough }));
    if (!head) return { state: decider.initialState(), version: 0 };
    if (head.snapshot && head.snapshot.version === decider.snapshotVersion) {
      if (!cached) this.heads.remember(streamId, head, false);
      return { state: head.snapshot.state as State, version: head.version };
    }
    const envelopes = await this.options.store.readStream(streamId);
    const events = envelopes.map((e) => ({ type: e.type, data: e.data }) as Event);
    return { state: fold(decider, events), version: envelopes.at(-1)?.version ?? 0 };
  }

  async run<State, Command, Event extends DomainEvent>(
    request: CommandRequest<State, Command, Event>,
  ): Promise<CommandResult<State>> {
    const { decider, streamId, metadata } = request;
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      const assumeNew = attempt === 1 && request.expectNew === true && !this.heads.get(streamId);
      const { state, version } = assumeNew ? { state: decider.initialState(), version: 0 } : await this.load(decider, streamId, attempt > 1);
      const command = isBuilder<State, Command>(request.command) ? await request.command(state) : request.command;
      const decided = decider.decide(command, state);
      if (decided.length === 0) return { state, events: [], version };

      const envelopes = this.envelopesOf(decided, streamId, version, metadata);
      const newState = decided.reduce(decider.evolve, state);
      const snapshot = { version: decider.snapshotVersion, state: newState };
      const commit = {
        commitId: randomUUID(),
        appId: metadata.appId,
        streamId,
        startVersion: version + 1,
        endVersion: version + decided.length,
        events: envelopes,
        snapshot,
        committedAt: metadata.now,
      };
      const attemptDone = this.track(streamId, async () => {
        const { result } = await this.committer.append(commit);
        if (result === 'conflict') return false;
        this.heads.remember(streamId, { version: commit.endVersion, snapshot }, true);
        await request.onAppended?.(envelopes);
        await this.ownApplies.submit('all', envelopes);
        return true;
      });
      if (await attemptDone.promise) return { state: newState, events: envelopes, version: commit.endVersion };
      this.heads.forget(streamId);
      // The winner may be a command of this process still applying its events: its facts must be
      // visible before this command re-reads them.
      await Promise.allSettled([...(this.inFlight.get(streamId) ?? [])]);
      await sleep(backoffDelay(attempt, this.conflictBackoff));
    }
    throw new ApiError(
      'ERR_CONCURRENT_MODIFICATION',
      `The resource was changed by ${this.maxAttempts} concurrent requests in a row; retry the request.`,
    );
  }

  private envelopesOf(
    decided: readonly DomainEvent[],
    streamId: string,
    version: number,
    metadata: CommandMetadata,
  ): EventEnvelope[] {
    const occurredAt = metadata.now.toISOString();
    return decided.map((event, index) => ({
      id: randomUUID(),
      type: event.type,
      schemaVersion: currentSchemaVersion,
      appId: metadata.appId,
      streamId,
      version: version + index + 1,
      occurredAt,
      actor: metadata.actor,
      correlationId: metadata.correlationId,
      causationId: metadata.causationId ?? null,
      data: event.data,
    }));
  }

  /** Runs one attempt, registered as in flight on its stream until it is appended and applied, or lost. */
  private track<T>(streamId: string, attempt: () => Promise<T>): { promise: Promise<T> } {
    const running = this.inFlight.get(streamId) ?? new Set<Promise<unknown>>();
    this.inFlight.set(streamId, running);
    const promise = attempt().finally(() => {
      running.delete(promise);
      if (running.size === 0 && this.inFlight.get(streamId) === running) this.inFlight.delete(streamId);
    });
    running.add(promise);
    return { promise };
  }
}
