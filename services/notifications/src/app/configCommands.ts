import type { Actor } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import { appConfigDecider, appConfigStreamId } from '../domain/appConfig.js';
import type { AppConfigCommand } from '../domain/appConfig.js';
import type { AppDirectory } from './directory.js';

/**
 * The app's settings and providers change only here: one command on the app's stream, whose events
 * reach the read model before the request is answered; this replica's directory then loads the app
 * afresh.
 */
export class ConfigCommands {
  constructor(
    private readonly runner: CommandRunner,
    private readonly directory: AppDirectory,
  ) {}

  async run(actor: Actor, correlationId: string, command: AppConfigCommand): Promise<void> {
    const { events } = await this.runner.run({
      decider: appConfigDecider,
      streamId: appConfigStreamId(actor.appId),
      command,
      metadata: commandMetadata({ actor, requestId: correlationId }, new Date(command.at)),
    });
    this.directory.applied(events);
    // Answered once the events are on Kafka, so every replica's fence sees this change before any
    // message the client sends next (ADR 0035); bounded, as Kafka away must not fail a stored write.
    await this.runner.published();
  }
}
