import { ApiError } from '@chat/contracts';
import type { AsOf, RequestContext } from '@chat/contracts';
import { eventsAsOf } from '@chat/eventsourcing';
import type { StreamReader } from '@chat/eventsourcing';
import { applyInMemory } from '@chat/mongo';
import type { MessageCursor } from '../adapters/messageQuery.js';
import type { MessagesReadModels } from '../adapters/readModels.js';
import { conversationLogStream } from '../domain/conversationLog.js';
import { messageView } from '@chat/contracts';
import { messagesProjection } from '../projections/messages.js';
import type { MessageDoc } from '../projections/messages.js';
import type { ApiObject } from './conversationLog.js';

export interface MessagesAsOfDeps {
  /** This service's own commit store: every event of a conversation's stream is appended here. */
  events: StreamReader;
  /** The live read model, asked only which folded messages still exist (erasure is not undone). */
  readModels: Pick<MessagesReadModels, 'findMessages'>;
  /** At most this many events replayed per read (`TIME_TRAVEL_MAX_EVENTS`). */
  maxEvents: number;
}

/** A conversation's messages as of a token or a time, in list order, and how many there were. */
export interface MessagesAsOfPage {
  items: ApiObject[];
  total: number;
}

function key(doc: MessageDoc, field: MessageCursor['field']): number {
  return field === 'seq' ? doc.seq : doc.sentAt;
}

/** Oldest first, by the cursor's field and then the id (what the live list sorts by). */
function ordered(docs: MessageDoc[], field: MessageCursor['field']): MessageDoc[] {
  return docs.sort((a, b) => key(a, field) - key(b, field) || a.seq - b.seq);
}

/**
 * Time-travel message lists (ADR 0033): the conversation's own stream, read from this service's commit
 * store up to the bound, folded by the live read model's projection (`messagesProjection`, through the
 * projection runtime over memory), then ordered and cut by the live list's cursor rules.
 */
export class MessagesAsOf {
  constructor(private readonly deps: MessagesAsOfDeps) {}

  /** The state of `conversationId` as of `asOf`: messages after or before the cursor, at most `limit`, oldest first. */
  async list(context: RequestContext, conversationId: string, asOf: AsOf, cursor: MessageCursor | null, limit: number): Promise<MessagesAsOfPage> {
    const { appId } = context.actor;
    const streamId = conversationLogStream(appId, conversationId);
    if (asOf.kind === 'token' && !asOf.positions.has(streamId)) {
      throw new ApiError('ERR_BAD_REQUEST', 'asOf: the consistency token names no write of this conversation; ask with the token of one, or with a time', {
        fields: [{ field: 'asOf', problem: 'names no write of this conversation' }],
      });
    }
    const events = await eventsAsOf(this.deps.events, [streamId], asOf, this.deps.maxEvents);
    const store = await applyInMemory(messagesProjection, events);
    const field = cursor?.field ?? 'seq';
    const all = ordered([...store.snapshot<MessageDoc>().values()], field);
    const matching = cursor
      ? all.filter((doc) => (cursor.direction === 'before' ? key(doc, field) < cursor.value : key(doc, field) > cursor.value))
      : all;
    const backwards = cursor?.direction === 'before';
    const page = await this.stillStored(appId, backwards ? matching.reverse() : matching, limit);
    if (backwards) page.reverse();
    return { items: page.map((doc) => messageView(doc, context.actor.uid)), total: all.length };
  }

  /**
   * The first `limit` candidates that the live read model still holds: a message deleted permanently
   * since, or erased with its user, stays erased in the past too. Checked a page's worth at a time.
   */
  private async stillStored(appId: string, candidates: readonly MessageDoc[], limit: number): Promise<MessageDoc[]> {
    const kept: MessageDoc[] = [];
    for (let start = 0; start < candidates.length && kept.length < limit; start += limit) {
      const slice = candidates.slice(start, start + limit);
      const live = await this.deps.readModels.findMessages(appId, slice.map((doc) => doc.id));
      kept.push(...slice.filter((doc) => live.has(doc.id)).slice(0, limit - kept.length));
    }
    return kept;
  }
}
