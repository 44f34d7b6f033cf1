import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, eventSchemas } from '@chat/contracts';
import type { EventSchemaRegistry } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { backoffDelay } from './backoff.js';
import type { Backoff } from './backoff.js';
import { Coalescer } from './coalescer.js';
import type { CommandMetadata, CommandRequest, CommandResult } from './command.js';
import { fold } from './decider.js';
import type { Decider, DomainEvent } from './decider.js';
import { GroupCommitter } from './groupCommit.js';
import type { GroupCommitOptions } from './groupCommit.js';
import { Outbox } from './outbox.js';
import type { OutboxLogger, OutboxOptions } from './outbox.js';
import type { CommitStore, EventPublisher, StreamHead } from './store.js';
import { StreamHeads } from './streamHeads.js';
import { prepareOnce, turnLength } from './laneTurns.js';
import type { Queued } from './laneTurns.js';
import { ForeignPredecessors } from './foreignPredecessors.js';
import { endCommandSpanWhenSettled, startCommandSpan } from './tracing.js';

/** How long `published()` waits by default: far longer than a produce takes unless Kafka is away. */
export const PUBLISH_WAIT_MS = 2_000;

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
  /**
   * How often changed stream heads are saved (default 5 s). A head is only a shortcut for a cold
   * load (a restart, another replica): the commits since it are read and folded on top, so saving
   * less often costs a few more commits read then, and saves one update per busy stream per interval.
   */
  headSaveIntervalMs?: number;
  /**
   * Called with a command's appended events once it succeeded, in the caller's async context (so a
   * request-scoped collector sees its own commands: the consistency token).
   */
  onCommitted?: (events: readonly EventEnvelope[]) => void;
  /**
   * The event shapes: the version each new event is written at, and how a replayed older one becomes
   * the newest before the decider folds it (ADR 0060). The contracts' catalogue unless a test gives one.
   */
  schemas?: Pick<EventSchemaRegistry, 'newestVersion' | 'upcast'>;
}

const NO_PREDECESSORS: Promise<EventEnvelope[]> = Promise.resolve([]);

function isBuilder(command: unknown): command is (state: unknown) => unknown {
  return typeof command === 'function';
}

export interface RunnerCounters {
  /** Appends that lost a race with another process; each one retried its turn. */
  conflicts: number;
  /** Turns that lost every attempt and answered ERR_CONCURRENT_MODIFICATION. */
  exhausted: number;
}

/**
 * The one way state changes, for every service: load (cached head, snapshot or fold) → build the
 * command from fresh facts → decide → group-commit the append → hand it to the ordered outbox →
 * apply the events to the service's own read models (grouped with concurrent commands) → answer.
 * Commands on one stream take turns in this process (lanes); a conflict with another process
 * retries the turn on fresh state and facts, with backoff and jitter.
 */
export class CommandRunner {
  private readonly schemas: Pick<EventSchemaRegistry, 'newestVersion' | 'upcast'>;
  private readonly heads: StreamHeads;
  private readonly outbox: Outbox;
  private readonly committer: GroupCommitter;
  private readonly ownApplies: Coalescer<readonly EventEnvelope[], undefined>;
  /** Per stream, the commands of this process waiting for their turn (absent: no turn is running). */
  private readonly lanes = new Map<string, Queued[]>();
  /** Streams whose running turn has not had its append acknowledged: commands queued behind it prepare then. */
  private readonly appending = new Set<string>();
  private readonly maxAttempts: number;
  private readonly conflictBackoff: Backoff;
  private readonly tally: RunnerCounters = { conflicts: 0, exhausted: 0 };
  private headTimer: NodeJS.Timeout | null = null;
  /** Heads this process produced by appending (not loaded): a stream continued from one has no foreign predecessor. */
  private readonly ownHeads = new WeakSet<StreamHead>();
  /** What a turn after another process's commits applies first (ADR 0157). */
  private readonly predecessors: ForeignPredecessors;

  constructor(private readonly options: CommandRunnerOptions) {
    this.schemas = options.schemas ?? eventSchemas;
    this.heads = new StreamHeads(options.store);
    this.predecessors = new ForeignPredecessors(options.store, this.schemas);
    this.outbox = new Outbox(options.store, options.publisher, options.logger, options.outbox);
    this.committer = new GroupCommitter(options.store, this.outbox, options.groupCommit);
    // A group commit's lanes, released together, reach their apply microtasks apart: one apply for all.
    this.ownApplies = new Coalescer(
      async (_key, groups) => {
        await options.readModels.apply(groups.flat());
        return groups.map(() => undefined);
      },
      { gatherTurn: true },
    );
    this.maxAttempts = options.maxAttempts ?? 8;
    this.conflictBackoff = options.conflictBackoff ?? { baseMs: 5, maxMs: 200, jitter: 'equal' };
  }

  /** Republishes what a crashed predecessor left unpublished; call before taking traffic. */
  async start(): Promise<void> {
    await this.outbox.recover();
    const interval = this.options.headSaveIntervalMs ?? 5_000;
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

  /** Lost appends (each one retried the turn) and turns that gave up, since start (for metrics). */
  get counters(): Readonly<RunnerCounters> {
    return this.tally;
  }

  /**
   * Resolves once everything this process appended before the call is on Kafka, true; or false after
   * `timeoutMs` (Kafka away: the events are stored and will follow). For a write whose answer promises
   * that other services' watches will see it before anything the client does next (configuration
   * changes, ADR 0035): commands themselves answer without waiting for Kafka.
   */
  async published(timeoutMs = PUBLISH_WAIT_MS): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([this.outbox.flush().then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Appended events not yet known to be on Kafka. */
  get publishBacklog(): number {
    return this.outbox.backlog;
  }

  /**
   * A stream's current state and version, for queries that answer from the write side. A head this
   * process holds in memory is checked with one look-up for a commit after it (another replica may
   * have appended since); a query has no append to find that out.
   */
  async load<State, Event extends DomainEvent>(
    decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve' | 'snapshotVersion'>,
    streamId: string,
  ): Promise<{ state: State; version: number }> {
    const cached = this.heads.get(streamId);
    const head = await this.options.store.readHead(streamId, cached ? { after: cached } : {});
    return this.stateAt(decider, streamId, head, head !== cached);
  }

  /**
   * For a command: the head in memory as it is (an append on a stale head conflicts, and the turn is
   * decided again), else the store's (`thorough` after a conflict).
   */
  private async loadForCommand<State, Event extends DomainEvent>(
    decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve' | 'snapshotVersion'>,
    streamId: string,
    thorough: boolean,
  ): Promise<{ state: State; version: number }> {
    const cached = thorough ? undefined : this.heads.get(streamId);
    const head = cached ?? (await this.options.store.readHead(streamId, { thorough }));
    return this.stateAt(decider, streamId, head, cached === undefined);
  }

  /** The state at a head: its snapshot when the decider's, else the stream folded. */
  private async stateAt<State, Event extends DomainEvent>(
    decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve' | 'snapshotVersion'>,
    streamId: string,
    head: StreamHead | null,
    remember: boolean,
  ): Promise<{ state: State; version: number }> {
    if (!head) return { state: decider.initialState(), version: 0 };
    if (head.snapshot && head.snapshot.version === decider.snapshotVersion) {
      if (remember) this.heads.remember(streamId, head, false);
      return { state: head.snapshot.state as State, version: head.version };
    }
    const envelopes = await this.options.store.readStream(streamId);
    const events = envelopes.map((stored) => {
      const e = this.schemas.upcast(stored);
      return { type: e.type, data: e.data } as Event;
    });
    return { state: fold(decider, events), version: envelopes.at(-1)?.version ?? 0 };
  }

  /**
   * Runs one command on its stream. Commands for the same stream from this process take turns in a
   * lane: whatever queued while the previous turn was appending is decided in one go, each on the
   * state the one before left, and appended as one commit. A hot stream (one busy conversation) then
   * costs one append per turn, not a version conflict and a retry per command.
   */
  run<State, Command, Event extends DomainEvent>(request: CommandRequest<State, Command, Event>): Promise<CommandResult<State>> {
    // Started here, in the caller's context, so the command span is a child of its request's span.
    const traced = startCommandSpan(request.streamId);
    const outcome = new Promise<CommandResult<State>>((resolve, reject) => {
      const queued = { request, origin: traced.origin, resolve, reject, prepared: false } as unknown as Queued;
      if (!this.appending.has(request.streamId)) prepareOnce(queued);
      const lane = this.lanes.get(request.streamId);
      if (lane) {
        lane.push(queued);
        return;
      }
      this.lanes.set(request.streamId, [queued]);
      void this.drain(request.streamId);
    });
    endCommandSpanWhenSettled(traced, outcome);
    const { onCommitted } = this.options;
    if (!onCommitted) return outcome;
    // Attached here, so the callback runs in this caller's context, not in the lane's that decided it.
    return outcome.then((result) => {
      if (result.events.length > 0) onCommitted(result.events);
      return result;
    });
  }

  /** Runs the stream's lane turn after turn until nothing is waiting. */
  private async drain(streamId: string): Promise<void> {
    for (;;) {
      const waiting = this.lanes.get(streamId) ?? [];
      if (waiting.length === 0) {
        this.lanes.delete(streamId);
        return;
      }
      const turn = waiting.splice(0, turnLength(waiting));
      for (const queued of turn) prepareOnce(queued);
      // Commands queuing behind this turn prepare once its append is acknowledged (`appended`).
      this.appending.add(streamId);
      try {
        await this.runTurn(streamId, turn);
      } catch (error) {
        for (const queued of turn) queued.reject(error);
      } finally {
        this.appended(streamId);
      }
    }
  }

  /** The turn's append is acknowledged (or failed): what queued behind it prepares now, in order, in one go. */
  private appended(streamId: string): void {
    this.appending.delete(streamId);
    for (const queued of this.lanes.get(streamId) ?? []) prepareOnce(queued);
  }

  /**
   * Decides the turn's commands one after the other and appends their events as one commit; after a
   * lost race every command is built and decided again on fresh state (its facts re-read).
   */
  private async runTurn(streamId: string, turn: Queued[]): Promise<void> {
    const first = turn[0]!.request;
    const { decider } = first;
    // Set when a refusal decided on the head in memory found a newer one in the store: decide again on it.
    let refreshed = false;
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      const fromMemory = attempt === 1 || refreshed;
      // A stream its caller knows is new (a fresh id) is not looked for in the store on the first attempt.
      const assumeNew = attempt === 1 && turn.every((queued) => queued.request.expectNew === true) && !this.heads.get(streamId);
      const cached = fromMemory ? this.heads.get(streamId) : undefined;
      const loaded = assumeNew ? { state: decider.initialState(), version: 0 } : await this.loadForCommand(decider, streamId, !fromMemory);
      refreshed = false;
      let { state, version } = loaded;
      const decided: Array<{ queued: Queued; envelopes: EventEnvelope[]; state: unknown; version: number }> = [];
      const refused: Array<{ queued: Queued; error: unknown }> = [];
      for (const queued of turn) {
        const { request } = queued;
        try {
          const command = isBuilder(request.command) ? await request.command(state) : request.command;
          const events = request.decider.decide(command, state);
          const envelopes = this.envelopesOf(events, streamId, version, request.metadata);
          state = events.reduce(request.decider.evolve, state);
          version += events.length;
          decided.push({ queued, envelopes, state, version });
        } catch (error) {
          refused.push({ queued, error });
        }
      }
      const envelopes = decided.flatMap((d) => d.envelopes);
      if (envelopes.length === 0 && cached !== undefined) {
        // Nothing to append, decided on the head in memory: another replica may have appended since,
        // and a refusal or no-op answered from a stale state would stand (a change would have
        // conflicted on append). One look-up for a commit after it says whether to decide again.
        const current = await this.options.store.readHead(streamId, { after: cached });
        if (current && current.version !== cached.version) {
          this.heads.remember(streamId, current, false);
          refreshed = true;
          continue;
        }
      }
      if (envelopes.length === 0) {
        for (const { queued, state: after, version: at } of decided) queued.resolve({ state: after, events: [], version: at });
        for (const { queued, error } of refused) queued.reject(error);
        return;
      }
      const snapshot = { version: decider.snapshotVersion, state };
      // Each event's command context, when any command of the turn is traced.
      const origins = decided.some((d) => d.queued.origin) ? decided.flatMap((d) => d.envelopes.map(() => d.queued.origin)) : undefined;
      const commit = {
        commitId: randomUUID(),
        appId: first.metadata.appId,
        streamId,
        startVersion: loaded.version + 1,
        endVersion: version,
        events: envelopes,
        // Continued from a version this process did not append: that commit may not be on Kafka yet.
        afterForeign: loaded.version > 0 && !(cached !== undefined && this.ownHeads.has(cached) && cached.version === loaded.version),
        snapshot,
        committedAt: first.metadata.now,
        ...(origins ? { origins } : {}),
      };
      // Read beside the append, not after it: only a turn that continues another process's commits reads.
      const predecessors = commit.afterForeign ? this.predecessors.before(streamId, loaded.version) : NO_PREDECESSORS;
      // Awaited only once appended; a lost race or a failed append leaves it unawaited.
      predecessors.catch(() => undefined);
      const { result } = await this.committer.append(commit);
      if (result === 'appended') {
        const head = { version, snapshot };
        this.ownHeads.add(head);
        this.heads.remember(streamId, head, true);
        this.appended(streamId);
        for (const { queued, envelopes: own } of decided) {
          // Awaited only where there is one: a send has none, and an await of nothing is a tick all the same.
          if (queued.request.onAppended && own.length > 0) await queued.request.onAppended(own);
        }
        // The next turn starts after this one is applied, so its facts include these events.
        try {
          await this.ownApplies.submit('all', [...(await predecessors), ...envelopes]);
        } catch (error) {
          // Appended but not applied: the next turn must not continue from here as if it were.
          this.heads.forget(streamId);
          throw error;
        }
        this.predecessors.appliedHere(streamId, version);
        for (const { queued, envelopes: own, state: after, version: at } of decided) queued.resolve({ state: after, events: own, version: at });
        for (const { queued, error } of refused) queued.reject(error);
        return;
      }
      // Another process appended first (this process's commands on the stream wait in its lane).
      this.tally.conflicts += 1;
      this.heads.forget(streamId);
      await sleep(backoffDelay(attempt, this.conflictBackoff));
    }
    this.tally.exhausted += 1;
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
      schemaVersion: this.schemas.newestVersion(event.type),
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
}
