import { conversationDeletionEventTypes, groupConversationId, groupEventTypes, groupSummaryOf, messageTimelineEventTypes } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import {
  CHUNK_SIZE,
  timelineDocId,
  withClearedUpTo,
  withDeletion,
  withEdit,
  withGroupChange,
  withMessage,
} from '../domain/conversationTimeline.js';
import type { GroupChange, TimelineChunk, TimelineDoc } from '../domain/conversationTimeline.js';
import type { ConversationGroup } from '../domain/conversationView.js';

const timelineEventTypes = [...messageTimelineEventTypes, ...groupEventTypes, ...conversationDeletionEventTypes] as const;
export type TimelineEvent = Extract<KnownEvent, { type: (typeof timelineEventTypes)[number] }>;

/** The conversation a timeline event belongs to. */
export function timelineConversationOf(event: TimelineEvent): string {
  switch (event.type) {
    case 'MessageSent':
    case 'MessageEdited':
    case 'MessageDeleted':
    case 'ConversationDeleted':
      return event.data.conversationId;
    case 'GroupCreated':
    case 'GroupUpdated':
    case 'GroupDeleted':
    case 'GroupMembersAdded':
    case 'GroupMemberJoined':
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
    case 'GroupMemberScopeChanged':
    case 'GroupMemberUnbanned':
      return groupConversationId(event.data.guid);
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

function groupChangeOf(event: TimelineEvent): GroupChange | null {
  switch (event.type) {
    case 'GroupCreated': {
      const g = event.data;
      const group: ConversationGroup = {
        ...groupSummaryOf(g),
        tags: g.tags,
        createdAt: g.createdAt,
        membersCount: 0,
      };
      return { kind: 'created', group };
    }
    case 'GroupUpdated':
      return { kind: 'updated', update: event.data };
    case 'GroupDeleted':
      return { kind: 'deleted' };
    case 'GroupMembersAdded':
      return { kind: 'members', delta: event.data.members.length };
    case 'GroupMemberJoined':
      return { kind: 'members', delta: 1 };
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
      return { kind: 'members', delta: -1 };
    case 'GroupMemberScopeChanged':
    case 'GroupMemberUnbanned':
    case 'MessageSent':
    case 'MessageEdited':
    case 'MessageDeleted':
    case 'ConversationDeleted':
      return null;
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * The conversation timelines: one document per conversation, one write per message (a thread
 * reply writes nothing). `chunkSize` is a parameter only so tests can seal chunks every few messages.
 */
export function conversationTimelines(chunkSize = CHUNK_SIZE): Projection<TimelineDoc, TimelineEvent> {
  return {
    name: 'conversation-timelines',
    eventTypes: timelineEventTypes,
    documentIds(event: TimelineEvent): string[] {
      if (event.type === 'MessageSent' && event.data.parentId !== undefined) return [];
      if (groupChangeOf(event) === null && event.type.startsWith('Group')) return [];
      return [timelineDocId(event.appId, timelineConversationOf(event))];
    },
    evolve(doc: TimelineDoc | null, event: TimelineEvent): TimelineDoc | null {
      switch (event.type) {
        case 'MessageSent':
          return withMessage(doc, event.appId, event.data, Date.parse(event.occurredAt), chunkSize);
        case 'MessageEdited':
          return withEdit(doc, event.data);
        case 'MessageDeleted':
          return withDeletion(doc, event.data);
        case 'ConversationDeleted':
          return withClearedUpTo(doc, event.appId, event.data, chunkSize);
        case 'GroupCreated':
        case 'GroupUpdated':
        case 'GroupDeleted':
        case 'GroupMembersAdded':
        case 'GroupMemberJoined':
        case 'GroupMemberLeft':
        case 'GroupMemberKicked':
        case 'GroupMemberBanned':
        case 'GroupMemberScopeChanged':
        case 'GroupMemberUnbanned': {
          const change = groupChangeOf(event);
          if (!change) return doc;
          const at = Math.floor(Date.parse(event.occurredAt) / 1000);
          return withGroupChange(doc, event.appId, timelineConversationOf(event), change, at, chunkSize);
        }
        default: {
          const unreachable: never = event;
          throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
        }
      }
    },
  };
}

/**
 * The sealed chunk a timeline document carries, if any: the adapter stores it in the history
 * collection before the document itself is written (an insert that a duplicate makes a no-op: its
 * content depends only on the message stream, so every writer seals the same chunk).
 */
export function sealedChunkOf(doc: TimelineDoc): TimelineChunk | undefined {
  return doc.sealed;
}
