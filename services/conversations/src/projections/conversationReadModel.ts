import type { EventEnvelope } from '@chat/contracts';
import { ProjectionRuntime, allOf, stripStoredFields } from '@chat/mongo';
import type { DocumentStore, EventApplier, Stored } from '@chat/mongo';
import { conversationMemberDocId } from '../domain/conversationMember.js';
import type { ConversationMemberDoc } from '../domain/conversationMember.js';
import { CHUNK_SIZE, historyChunkId, timelineDocId } from '../domain/conversationTimeline.js';
import type { TimelineChunk, TimelineDoc } from '../domain/conversationTimeline.js';
import { conversationView } from '../domain/unreadCount.js';
import type { ConversationView, TimelineHistory } from '../domain/unreadCount.js';
import { conversationMembers } from './conversationMembers.js';
import { conversationTimelines } from './conversationTimelines.js';
import { messageCopies, messageCopyDocId } from './messageCopies.js';
import type { MessageCopyDoc } from './messageCopies.js';
import { SealingTimelineStore } from './timelineStores.js';
import type { HistoryChunkDoc } from './timelineStores.js';

/** The four collections of the conversation read model, behind the runtime's port. */
export interface ConversationStores {
  timelines: DocumentStore;
  history: DocumentStore;
  members: DocumentStore;
  copies: DocumentStore;
}

/** Sealed chunks never change: every process may keep the ones it read. */
class ChunkCache {
  private readonly chunks = new Map<string, TimelineChunk>();

  constructor(private readonly capacity: number) {}

  get(id: string): TimelineChunk | undefined {
    return this.chunks.get(id);
  }

  set(id: string, chunk: TimelineChunk): void {
    this.chunks.set(id, chunk);
    if (this.chunks.size > this.capacity) this.chunks.delete(this.chunks.keys().next().value!);
  }
}

function documentOf<Doc extends object>(stored: Awaited<ReturnType<DocumentStore['find']>>): Doc | null {
  return stored ? stripStoredFields(stored as Stored<Doc>) : null;
}

/**
 * The conversation read model over any store (FerretDB in the service, maps in tests): three
 * projections on the one runtime, and the read-time derivation of each user's view.
 */
export class ConversationReadModel implements EventApplier {
  private readonly appliers: EventApplier;
  private readonly chunkCache = new ChunkCache(20_000);

  constructor(
    private readonly stores: ConversationStores,
    chunkSize = CHUNK_SIZE,
  ) {
    this.appliers = allOf(
      new ProjectionRuntime(conversationTimelines(chunkSize), new SealingTimelineStore(stores.timelines, stores.history)),
      new ProjectionRuntime(conversationMembers, stores.members),
      new ProjectionRuntime(messageCopies, stores.copies),
    );
  }

  apply(events: readonly EventEnvelope[]): Promise<void> {
    return this.appliers.apply(events);
  }

  async timeline(appId: string, conversationId: string): Promise<TimelineDoc | null> {
    return documentOf<TimelineDoc>(await this.stores.timelines.find(timelineDocId(appId, conversationId)));
  }

  async member(appId: string, owner: string, conversationId: string): Promise<ConversationMemberDoc | null> {
    return documentOf<ConversationMemberDoc>(await this.stores.members.find(conversationMemberDocId(appId, owner, conversationId)));
  }

  /** Where a timeline's sealed chunks and older messages are read from. */
  history(appId: string, conversationId: string): TimelineHistory {
    return {
      chunk: async (k) => {
        const id = historyChunkId(appId, conversationId, k);
        const cached = this.chunkCache.get(id);
        if (cached) return cached;
        const found = documentOf<HistoryChunkDoc>(await this.stores.history.find(id));
        if (!found) return null;
        const chunk: TimelineChunk = { k: found.k, before: found.before, entries: found.entries };
        this.chunkCache.set(id, chunk);
        return chunk;
      },
      message: async (id) => documentOf<MessageCopyDoc>(await this.stores.copies.find(messageCopyDocId(appId, id)))?.message ?? null,
    };
  }

  /** What `owner` sees of the conversation, from its timeline and their own facts. */
  view(timeline: TimelineDoc, member: ConversationMemberDoc | null, owner: string): Promise<ConversationView> {
    return conversationView(timeline, member, owner, this.history(timeline.appId, timeline.conversationId));
  }
}
