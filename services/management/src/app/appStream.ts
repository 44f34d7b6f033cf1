import { epochSeconds } from '@chat/contracts';
import type { Actor, EventEnvelope } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { Logger } from 'pino';
import { appDecider } from '../domain/apps/app.js';
import { appStreamId } from '../domain/apps/appState.js';
import type { AppCommand } from '../domain/apps/appCommands.js';
import type { AppState } from '../domain/apps/appState.js';

/** Writes made with the management key/secret act as the deployment's operator. */
export const managementActor = (appId: string): Actor => ({ appId, keyId: 'management', scope: 'management' });

/** Hashes of the keys an event batch touches or revokes: what gateways must forget. */
export function keyHashesOf(events: readonly EventEnvelope[]): string[] {
  const hashes: string[] = [];
  for (const event of events) {
    const hash = event.data['keyHash'];
    const many = event.data['keyHashes'];
    if (event.type.startsWith('ApiKey') && typeof hash === 'string') hashes.push(hash);
    if (event.type === 'AppDeleted' && Array.isArray(many)) hashes.push(...many.filter((h): h is string => typeof h === 'string'));
  }
  return hashes;
}

export interface AppStreamDeps {
  /** The shared runner: appends, publishes and applies to this service's read models. */
  runner: CommandRunner;
  invalidator: { invalidateTwice(keyHashes: readonly string[]): Promise<void> };
  logger: Logger;
  clock: () => Date;
}

/** Every management write is a command on one app's stream; this runs it. */
export class AppStream {
  constructor(private readonly deps: AppStreamDeps) {}

  now(): { date: Date; seconds: number } {
    const date = this.deps.clock();
    return { date, seconds: epochSeconds(date) };
  }

  /**
   * Runs the command; gateway caches of changed keys are invalidated as soon as the events are
   * stored, before the read models see them, because a revoked key must stop working even if the
   * projection fails. The topic consumer repeats both, so a failure here heals.
   */
  async run(appId: string, command: AppCommand, actor: Actor, requestId: string, now: Date): Promise<AppState> {
        const result = await this.deps.runner.run({
      decider: appDecider,
      streamId: appStreamId(appId),
      command,
      metadata: commandMetadata({ actor, requestId }, now),
      onAppended: (events) =>
        this.deps.invalidator
          .invalidateTwice(keyHashesOf(events))
          .catch((error: unknown) => this.deps.logger.error({ err: error }, 'api key cache invalidation failed; the consumer will retry')),
    });
    // Answered once the events are on Kafka: a client's next request (a message, say) cannot overtake
    // this configuration on the way to the webhooks process's fence (ADR 0035). Bounded: Kafka away
    // must not fail a write that is stored; the outbox publishes it later (ADR 0008).
    if (!(await this.deps.runner.published())) {
      this.deps.logger.warn({ appId, command: command.type }, 'management write answered before its events reached Kafka');
    }
    return result.state;
  }
}
