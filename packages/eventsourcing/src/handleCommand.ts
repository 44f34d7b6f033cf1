import { randomUUID } from 'node:crypto';
import { ApiError, currentSchemaVersion } from '@chat/contracts';
import type { Actor, EventEnvelope } from '@chat/contracts';
import { fold } from './decider.js';
import type { Decider, DomainEvent } from './decider.js';
import type { CommitStore, EventPublisher, StreamHead } from './store.js';

/** Who asked, and why: copied into every envelope the command produces. */
export interface CommandMetadata {
  appId: string;
  actor: Actor;
  correlationId: string;
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

export interface HandleCommandOptions {
  /** How many times a command is re-decided after losing an append race. */
  maxAttempts?: number;
  publisher?: EventPublisher;
  /** Publishing failures never fail the command: the relay sends unpublished commits later. */
  onPublishError?: (error: unknown) => void;
}

async function loadState<State, Event extends DomainEvent>(
  store: CommitStore,
  decider: Decider<State, unknown, Event>,
  streamId: string,
): Promise<{ state: State; version: number }> {
  const head: StreamHead | null = await store.readHead(streamId);
  if (!head) return { state: decider.initialState(), version: 0 };
  if (head.snapshot && head.snapshot.version === decider.snapshotVersion) {
    return { state: head.snapshot.state as State, version: head.version };
  }
  const envelopes = await store.readStream(streamId);
  const events = envelopes.map((e) => ({ type: e.type, data: e.data }) as Event);
  return { state: fold(decider, events), version: envelopes.at(-1)?.version ?? 0 };
}

/**
 * The one way state changes: load → decide → append with the expected version → publish.
 * `decide` runs again on a fresh state when another writer got there first.
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  store: CommitStore,
  decider: Decider<State, Command, Event>,
  streamId: string,
  command: Command,
  metadata: CommandMetadata,
  options: HandleCommandOptions = {},
): Promise<CommandResult<State>> {
  const maxAttempts = options.maxAttempts ?? 5;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const { state, version } = await loadState(store, decider as Decider<State, unknown, Event>, streamId);
    const decided = decider.decide(command, state);
    if (decided.length === 0) return { state, events: [], version };

    const occurredAt = metadata.now.toISOString();
    const envelopes: EventEnvelope[] = decided.map((event, index) => ({
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
    const newState = decided.reduce(decider.evolve, state);
    const commitId = randomUUID();
    const outcome = await store.append({
      commitId,
      appId: metadata.appId,
      streamId,
      startVersion: version + 1,
      endVersion: version + decided.length,
      events: envelopes,
      snapshot: { version: decider.snapshotVersion, state: newState },
      committedAt: metadata.now,
      published: false,
    });
    if (outcome === 'conflict') continue;

    if (options.publisher) {
      try {
        await options.publisher.publish(envelopes);
        await store.markPublished(commitId);
      } catch (error) {
        options.onPublishError?.(error);
      }
    }
    return { state: newState, events: envelopes, version: version + decided.length };
  }
  throw new ApiError(
    'ERR_CONCURRENT_MODIFICATION',
    `The resource was changed by ${maxAttempts} concurrent requests in a row; retry the request.`,
  );
}
