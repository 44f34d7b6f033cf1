import { epochSeconds } from '@chat/contracts';
import type { EventEnvelope, PresenceState, RequestContext } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner, Decider, DomainEvent } from '@chat/eventsourcing';
import type { UserReadModels } from '../adapters/readModels.js';
import { userDecider, userStream } from '../domain/users/user.js';
import type { UserCommand } from '../domain/users/user.js';

export interface UsersDeps {
  /** The shared runner: appends, publishes and applies to this service's read models. */
  runner: CommandRunner;
  readModels: UserReadModels;
  clock?: () => Date;
  /** Whether the user is connected to realtime (ADR 0077); absent: every user shows its stored status. */
  presence?: (appId: string, uid: string) => Promise<PresenceState | null>;
}


export interface Timed<C> {
  command: C;
  now: Date;
}

/** The request's time and identity around the shared command runner, for the users service's streams. */
export class UserCommands {
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
    expectNew = false,
  ): Promise<EventEnvelope[]> {
    const result = await this.deps.runner.run({
      decider,
      streamId,
      command,
      metadata: commandMetadata(context, now),
      ...(expectNew ? { expectNew } : {}),
    });
    return result.events;
  }

  /** A command on one user's stream, given the time of the request in epoch seconds. */
  onUser(context: RequestContext, uid: string, command: (now: number) => UserCommand, now = this.now()): Promise<EventEnvelope[]> {
    return this.run(context, userDecider, userStream(context.actor.appId, uid), command(epochSeconds(now)), now);
  }

  /**
   * A command that creates the user: the uid is usually new, so its stream is not read first (an
   * import of thousands of users would read a missing head per user). A uid that exists conflicts on
   * append, and the runner then decides again on the stored stream as usual.
   */
  creatingUser(context: RequestContext, uid: string, command: (now: number) => UserCommand, now = this.now()): Promise<EventEnvelope[]> {
    return this.run(context, userDecider, userStream(context.actor.appId, uid), command(epochSeconds(now)), now, true);
  }
}
