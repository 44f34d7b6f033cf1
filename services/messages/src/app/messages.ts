import type { CommandRunner } from '@chat/eventsourcing';
import type { MessageIds } from '../adapters/messageIds.js';
import type { MessagesReadModels } from '../adapters/readModels.js';
import { ConversationLog } from './conversationLog.js';
import { MessageChanges } from './messageChanges.js';
import { MessageQueries } from './messageQueries.js';
import { MessageSending } from './messageSending.js';
import type { MessageSendingDeps } from './messageSending.js';
import { Pins } from './pins.js';
import { Reactions } from './reactions.js';

export interface MessagesDeps {
  /** The shared runner: appends, publishes and applies to this service's read models. */
  runner: CommandRunner;
  readModels: MessagesReadModels;
  ids: Pick<MessageIds, 'allocate'>;
  moderation: MessageSendingDeps['moderation'];
  clock?: () => Date;
}

/**
 * The message use cases, one object per reason to change, over one conversation log: sending (a new
 * message and its id), changes (edit, delete), reactions, pins, and the queries.
 */
export interface MessagesApp {
  log: ConversationLog;
  sending: MessageSending;
  changes: MessageChanges;
  reactions: Reactions;
  pins: Pins;
  queries: MessageQueries;
}

export function createMessagesApp(deps: MessagesDeps): MessagesApp {
  const { readModels, ids } = deps;
  const log = new ConversationLog({ runner: deps.runner, readModels, ...(deps.clock ? { clock: deps.clock } : {}) });
  return {
    log,
    sending: new MessageSending({ log, readModels, ids, moderation: deps.moderation }),
    changes: new MessageChanges({ log, readModels, ids }),
    reactions: new Reactions({ log, readModels }),
    pins: new Pins({ log }),
    queries: new MessageQueries({ log, readModels }),
  };
}
