import { epochSeconds } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import { messageInteractionDecider, messageInteractionStream } from '../../domain/personalMarks/messageInteractions.js';
import type { PersonalReadModels } from '../../adapters/personalMarks/personalReadModels.js';
import { messageTarget } from './messageTarget.js';
import type { MessagesApp } from '../messages.js';
import type { ApiObject } from '../conversationLog.js';

export interface MessageInteractionsDeps {
  runner: CommandRunner;
  messages: MessagesApp;
  personal: PersonalReadModels;
  clock?: () => Date;
}

/** `PATCH /messages/{id}/interacted`: the acting user used these elements of an interactive message. */
export class MessageInteractions {
  private readonly clock: () => Date;

  constructor(private readonly deps: MessageInteractionsDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async mark(context: RequestContext, uid: string, id: string, elementIds: readonly string[]): Promise<ApiObject> {
    const now = this.clock();
    await this.deps.runner.run({
      decider: messageInteractionDecider,
      streamId: messageInteractionStream(context.actor.appId, uid, id),
      command: async () => {
        const target = await messageTarget(this.deps.messages, context, id);
        return {
          type: 'MarkInteracted' as const,
          target: target.facts,
          actor: target.actor,
          interaction: { uid, id, conversationId: target.doc?.conversationId ?? '', elementIds: [...elementIds], interactedAt: epochSeconds(now) },
        };
      },
      metadata: commandMetadata(context, now),
    });
    // Beside CometChat's acknowledgement, the elements this user has marked so far (read after the write).
    const interactions = (await this.deps.personal.interactionsOf(context.actor.appId, id))
      .filter((interaction) => interaction.uid === uid)
      .map(({ elementId, interactedAt }) => ({ elementId, interactedAt }));
    return { success: true, message: `The message ${id} has been marked as interacted for ${uid}.`, interactions };
  }
}
