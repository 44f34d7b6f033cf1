import { InMemoryDocumentStore, stripStoredFields } from '@chat/mongo';
import type { DocumentStore, Stored, StoredRecord } from '@chat/mongo';
import type { ConversationMemberDoc } from '../domain/conversationMember.js';
import type { TimelineDoc } from '../domain/conversationTimeline.js';
import type { ConversationStores } from './conversationReadModel.js';

// The conversation read model's collections in memory and its two scans over them: what the unit tests
// run it on, and what a time-travel read folds one conversation's past into (ADR 0033).

export type MemoryConversationStores = Record<'timelines' | 'history' | 'members' | 'copies' | 'inboxes', InMemoryDocumentStore>;

function documents<Doc extends object>(store: InMemoryDocumentStore, wanted: (doc: Doc) => boolean): Doc[] {
  return store.stored().map((stored: StoredRecord) => stripStoredFields(stored as unknown as Stored<Doc>)).filter(wanted);
}

/** Fresh in-memory collections; `wrap` puts something (a counter) in front of each port. */
export function memoryConversationStores(wrap: (store: InMemoryDocumentStore) => DocumentStore = (store) => store): {
  stores: ConversationStores;
  memory: MemoryConversationStores;
} {
  const timelines = new InMemoryDocumentStore();
  const history = new InMemoryDocumentStore();
  const members = new InMemoryDocumentStore();
  const copies = new InMemoryDocumentStore();
  const inboxes = new InMemoryDocumentStore();
  const scans = {
    timelinesWith: (appId: string, uid: string) =>
      Promise.resolve(documents<TimelineDoc>(timelines, (doc) => doc.appId === appId && doc.conversationType === 'user' && (doc.participants ?? []).includes(uid))),
    membersOf: (appId: string, uid: string) => Promise.resolve(documents<ConversationMemberDoc>(members, (doc) => doc.appId === appId && doc.owner === uid)),
  };
  return {
    stores: { timelines: wrap(timelines), history: wrap(history), members: wrap(members), copies: wrap(copies), inboxes: wrap(inboxes), scans },
    memory: { timelines, history, members, copies, inboxes },
  };
}
