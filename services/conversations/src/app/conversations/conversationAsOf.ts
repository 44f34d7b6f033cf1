import { ApiError, conversationLogStreamId } from '@chat/contracts';
import type { AsOf, EventEnvelope } from '@chat/contracts';
import { eventsAsOf } from '@chat/eventsourcing';
import type { StreamReader } from '@chat/eventsourcing';
import { conversationDeletionStream } from '../../domain/conversationDeletion.js';
import { conversationMarksStream } from '../../domain/conversationMarks.js';
import type { ConversationGroup, UserConversation } from '../../domain/conversationView.js';
import { groupStream } from '../../domain/groups/groupState.js';
import { userPinsStream } from '../../domain/pins/userPins.js';
import type { ConversationRef } from '../../domain/pins/userPins.js';
import { ConversationReadModel } from '../../projections/conversationReadModel.js';
import { memoryConversationStores } from '../../projections/memoryStores.js';

/** Events applied per call: what one consumer handler call applies at most (ADR 0012's runs, 0013's seals). */
const FOLD_RUN = 256;

export interface ConversationAsOfDeps {
  /** This service's own commit store: marks, pins, deletions for everyone, groups. */
  local: StreamReader;
  /** The conversation's message stream, from the messages service that appends it. */
  messages: StreamReader;
  /** At most this many events replayed per read, over all its streams (`TIME_TRAVEL_MAX_EVENTS`). */
  maxEvents: number;
}

/** The owner's conversation at a past state; null when there was none to show yet. */
export interface PastConversation {
  conversation: UserConversation | null;
  /** The group's profile as it was then (group conversations). */
  group?: ConversationGroup;
}

/**
 * Time-travel reads of one user's conversation (ADR 0033). The streams that feed that view — the
 * conversation's messages, the owner's marks of it and their pins, its deletion for everyone, and for a
 * group the group itself — are read up to the bound and folded by the live read model's own code
 * (`ConversationReadModel` over in-memory collections), then read as the live read reads it.
 */
export class ConversationAsOf {
  constructor(private readonly deps: ConversationAsOfDeps) {}

  async conversation(appId: string, ref: ConversationRef, asOf: AsOf): Promise<PastConversation> {
    const messageStream = conversationLogStreamId(appId, ref.conversationId);
    const streams = [
      messageStream,
      conversationMarksStream(appId, ref.uid, ref.conversationId),
      userPinsStream(appId, ref.uid),
      conversationDeletionStream(appId, ref.conversationId),
      ...(ref.conversationType === 'group' ? [groupStream(appId, ref.conversationWith)] : []),
    ];
    if (asOf.kind === 'token' && !streams.some((stream) => asOf.positions.has(stream))) {
      throw new ApiError('ERR_BAD_REQUEST', 'asOf: the consistency token names no write of this conversation; ask with the token of one, or with a time', {
        fields: [{ field: 'asOf', problem: 'names no write of this conversation' }],
      });
    }
    // The streams a token names first: the others are cut at the time of that write.
    const streamOrder = asOf.kind === 'token' ? [...streams].sort((a, b) => Number(asOf.positions.has(b)) - Number(asOf.positions.has(a))) : streams;
    const reader: StreamReader = {
      streamEvents: (streamId) => (streamId === messageStream ? this.deps.messages : this.deps.local).streamEvents(streamId),
    };
    const events = await eventsAsOf(reader, streamOrder, asOf, this.deps.maxEvents);
    const model = new ConversationReadModel(memoryConversationStores().stores);
    // In the order they happened, as the live consumer mostly meets them (the model takes any
    // interleaving), and in runs no longer than a consumer's: a timeline document carries the chunks one
    // handler call seals only up to that size (`SEALS_KEPT`).
    const ordered = inTimeOrder(events);
    for (let start = 0; start < ordered.length; start += FOLD_RUN) await model.apply(ordered.slice(start, start + FOLD_RUN));
    const facts = await model.facts(appId, ref.uid, ref.conversationId);
    return { conversation: facts?.conversation ?? null, ...(facts?.timeline.group ? { group: facts.timeline.group } : {}) };
  }
}

function inTimeOrder(events: readonly EventEnvelope[]): EventEnvelope[] {
  return events
    .map((event, index) => ({ event, index, at: Date.parse(event.occurredAt) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ event }) => event);
}
