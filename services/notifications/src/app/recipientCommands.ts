import { ApiError } from '@chat/contracts';
import type { Actor } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import { readWithPatience } from '@chat/mongo';
import type { NotificationReadModels } from '../adapters/readModels.js';
import { recipientDecider, recipientStreamId } from '../domain/recipient.js';
import type { RecipientCommand } from '../domain/recipient.js';
import type { RecipientDocument } from '../projections/recipients.js';

/** A recipient's preferences, mutes, timezone, contact details and push tokens change only here. */
export class RecipientCommands {
  constructor(
    private readonly runner: CommandRunner,
    private readonly readModels: NotificationReadModels,
  ) {}

  /**
   * The user as notifications know them; an unknown or deleted uid is CometChat's 404. A user created
   * a moment ago through the users service reaches us through Kafka, so a missing one is waited for
   * briefly (an unknown uid pays the wait once).
   */
  async requireUser(appId: string, uid: string): Promise<RecipientDocument> {
    const found = await readWithPatience(() => this.readModels.findRecipient(appId, uid.toLowerCase()), { until: (doc) => doc?.exists === true });
    if (!found?.exists) throw new ApiError('ERR_UID_NOT_FOUND', `The UID ${uid} does not exist.`, { uid });
    return found;
  }

  /** Runs a command for a user that exists, and answers with their document after it. */
  async run(actor: Actor, correlationId: string, uid: string, command: RecipientCommand): Promise<RecipientDocument> {
    await this.requireUser(actor.appId, uid);
    await this.runner.run({
      decider: recipientDecider,
      streamId: recipientStreamId(actor.appId, uid),
      command,
      metadata: commandMetadata({ actor, requestId: correlationId }, new Date()),
    });
    return this.requireUser(actor.appId, uid);
  }
}
