import { epochSeconds } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { MessagesReadModels } from '../../adapters/readModels.js';
import type { PersonalReadModels } from '../../adapters/personalMarks/personalReadModels.js';
import { savedMessagesDecider, savedMessagesStream } from '../../domain/personalMarks/savedMessages.js';
import type { SavedMessagesCommand } from '../../domain/personalMarks/savedMessages.js';
import { messageView } from '@chat/contracts';
import { messageTarget } from './messageTarget.js';
import type { MessageTarget } from './messageTarget.js';
import type { MessagesApp } from '../messages.js';
import type { ApiObject } from '../conversationLog.js';

export interface SavedMessagesDeps {
  runner: CommandRunner;
  messages: MessagesApp;
  readModels: MessagesReadModels;
  personal: PersonalReadModels;
  clock?: () => Date;
}

/**
 * A user's private bookmarks (`POST`/`DELETE /messages/{id}/save`, `GET /messages?saved=true`): one
 * stream per user holds the list, so the cap of 100 holds under concurrent saves.
 */
export class SavedMessages {
  private readonly clock: () => Date;

  constructor(private readonly deps: SavedMessagesDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /** Answers with the message as the user sees it now: with `savedAt` while saved, without after. */
  async change(context: RequestContext, uid: string, id: string, change: 'save' | 'unsave'): Promise<ApiObject> {
    const now = this.clock();
    const at = epochSeconds(now);
    let target: MessageTarget | null = null;
    await this.deps.runner.run({
      decider: savedMessagesDecider,
      streamId: savedMessagesStream(context.actor.appId, uid),
      command: async (): Promise<SavedMessagesCommand> => {
        target = await messageTarget(this.deps.messages, context, id);
        const conversationId = target.doc?.conversationId ?? '';
        return change === 'save'
          ? { type: 'SaveMessage', target: target.facts, actor: target.actor, save: { uid, id, conversationId, savedAt: at } }
          : { type: 'UnsaveMessage', target: target.facts, actor: target.actor, unsave: { uid, id, conversationId, unsavedAt: at } };
      },
      metadata: commandMetadata(context, now),
    });
    const doc = (target as MessageTarget | null)?.doc;
    // A message erased since it was saved can still be unsaved; there is nothing left to show but its id.
    if (!doc) return { id };
    return { ...messageView(doc, uid), ...(change === 'save' ? { savedAt: at } : {}) };
  }

  /** The user's saved messages, most recently saved first, each with its `savedAt`; erased ones are left out. */
  async list(context: RequestContext, uid: string, limit: number): Promise<ApiObject[]> {
    const { appId } = context.actor;
    const entries = (await this.deps.personal.savedOf(appId, uid)).slice(0, limit);
    const docs = await this.deps.readModels.findMessages(appId, entries.map((entry) => entry.id));
    return entries.flatMap((entry) => {
      const doc = docs.get(entry.id);
      return doc ? [{ ...messageView(doc, uid), savedAt: entry.savedAt }] : [];
    });
  }
}
