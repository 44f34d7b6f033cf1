import type { Actor, EventEnvelope, RequestContext } from '@chat/contracts';
import type { Decider, DomainEvent } from './decider.js';

// What a caller hands the command runner and what it gets back; the runner's machinery is in
// commandRunner.ts.

/** Who asked, and why: copied into every envelope the command produces. */
export interface CommandMetadata {
  appId: string;
  actor: Actor;
  correlationId: string;
  /** The event this command reacts to, when it does. */
  causationId?: string | null;
  now: Date;
}

/**
 * A command's metadata from the request (or the event) it serves: the actor's app, the request id as
 * the correlation id of every event the command produces, and the event it reacts to, if any.
 */
export function commandMetadata(context: RequestContext, now: Date): CommandMetadata {
  return { appId: context.actor.appId, actor: context.actor, correlationId: context.requestId, causationId: context.causationId ?? null, now };
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
  /**
   * The command's facts do not depend on what earlier commands of the same stream change in the read
   * models (a send reads users and memberships, not the messages before it), so it may be decided in
   * one turn with them, before their events are applied. Commands that read what their predecessors
   * change (an edit after a delete, a second identical reaction) leave it unset and get a turn alone,
   * after the previous one is applied.
   */
  batchable?: boolean;
  /**
   * Starts what the builder will await (a send's message ids), once, before the command's turn: at
   * once when its stream has no turn waiting for its append, else when that append is acknowledged,
   * together with every command queued behind it, so that they can share one round trip.
   */
  prepare?: () => void;
  /** Called once the events are stored, before read models see them (e.g. to invalidate caches). */
  onAppended?: (events: readonly EventEnvelope[]) => Promise<void>;
  /**
   * The caller expects a stream nobody has written yet (a fresh id per item, like a webhook
   * delivery): the first attempt decides on the initial state without reading the store. If the
   * stream existed after all, the append conflicts and the retry reads it as usual.
   */
  expectNew?: boolean;
}
