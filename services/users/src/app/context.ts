import { epochSeconds } from '@chat/contracts';
import type { Actor, EventEnvelope } from '@chat/contracts';
import { handleCommand } from '@chat/eventsourcing';
import type { CommitStore, Decider, DomainEvent, EventPublisher } from '@chat/eventsourcing';
import type { Logger } from 'pino';
import type { UserReadModels } from '../adapters/readModels.js';
import { userDecider, userStream } from '../domain/user.js';
import type { UserCommand } from '../domain/user.js';

export interface UsersDeps {
  store: CommitStore;
  publisher: EventPublisher;
  readModels: UserReadModels;
  logger: Logger;
  clock?: () => Date;
}

export interface RequestContext {
  actor: Actor;
  requestId: string;
}


export interface Timed<C> {
  command: C;
  now: Date;
}

/**
 * Runs commands the one way state changes, then applies the new events to this service's read
 * models before the caller reads them back (read-your-writes, ADR 0004).
 */
export class CommandRunner {
  private readonly clock: () => Date;

  constructor(private readonly deps: UsersDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  now(): Date {
    return this.clock();
  }

  epochNow(): number {
    return epochSeconds(this.clock());
  }

  async run<State, Command, Event extends DomainEvent>(
    context: RequestContext,
    decider: Decider<State, Command, Event>,
    streamId: string,
    command: Command,
    now: Date,
  ): Promise<EventEnvelope[]> {
    const result = await handleCommand(
      this.deps.store,
      decider,
      streamId,
      command,
      { appId: context.actor.appId, actor: context.actor, correlationId: context.requestId, now },
      {
        publisher: this.deps.publisher,
        onPublishError: (err: unknown) => this.deps.logger.warn({ err }, 'publish deferred to relay'),
      },
    );
    for (const event of result.events) await this.deps.readModels.apply(event);
    return result.events;
  }

  /** A command on one user's stream, given the time of the request in epoch seconds. */
  onUser(context: RequestContext, uid: string, command: (now: number) => UserCommand, now = this.now()): Promise<EventEnvelope[]> {
    return this.run(context, userDecider, userStream(context.actor.appId, uid), command(epochSeconds(now)), now);
  }
}
