import { conversationPinEventTypes, groupConversationId } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import { sourceOfStream } from '@chat/mongo';
import type { Projection } from '@chat/mongo';
import { INBOX_SIZE, emptyInbox, inboxDocId, withInboxGroup, withInboxMessage, withInboxPin, withInboxReset } from '../domain/inbox.js';
import type { InboxDoc } from '../domain/inbox.js';

const inboxEventTypes = ['MessageSent', 'ConversationReset', 'GroupMembersAdded', 'GroupMemberJoined', ...conversationPinEventTypes] as const;
export type InboxEvent = Extract<KnownEvent, { type: (typeof inboxEventTypes)[number] }>;

/** The users whose inbox the event changes. */
function ownersOf(event: InboxEvent): string[] {
  switch (event.type) {
    case 'MessageSent':
      // Thread replies do not move a conversation; group messages are merged when the list is read.
      return event.data.receiverType === 'user' && event.data.parentId === undefined ? [event.data.sender, event.data.receiver] : [];
    case 'GroupMembersAdded':
      return event.data.members.map((member) => member.uid);
    case 'GroupMemberJoined':
    case 'ConversationReset':
    case 'ConversationPinned':
    case 'ConversationUnpinned':
      return [event.data.uid];
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Each user's inbox (`domain/inbox.ts`). Messages, resets and joins merge (no position: a user hears
 * from thousands of conversations); pins come from the user's one pin stream, in order.
 * `size` is a parameter only so tests can reach the bound with a few conversations.
 */
export function inboxes(size = INBOX_SIZE): Projection<InboxDoc, InboxEvent> {
  return {
    name: 'conversation-inboxes',
    eventTypes: inboxEventTypes,
    documentIds: (event) => ownersOf(event).map((owner) => inboxDocId(event.appId, owner)),
    sourceOf: (event) => (event.type === 'ConversationPinned' || event.type === 'ConversationUnpinned' ? sourceOfStream(event.streamId) : null),
    evolve(doc, event, documentId) {
      const owner = documentId.slice(event.appId.length + 1);
      const base = doc ?? emptyInbox(event.appId, owner);
      switch (event.type) {
        case 'MessageSent': {
          const { conversationId, sender, receiver, id, sentAt } = event.data;
          const peer = owner === sender ? receiver : sender;
          return withInboxMessage(base, { conversationId, peer, id, sentAt }, event.version === 1, size);
        }
        case 'ConversationReset':
          // Also on no inbox yet: the reset may arrive before the messages it covers (they come on another
          // topic, e.g. in a rebuild), and must still hide them.
          return withInboxReset(base, event.data.conversationId, event.data.upToMessageId);
        case 'GroupMembersAdded':
        case 'GroupMemberJoined':
          return withInboxGroup(base, groupConversationId(event.data.guid));
        case 'ConversationPinned':
          return withInboxPin(base, event.data.conversationId, event.version);
        case 'ConversationUnpinned':
          return withInboxPin(base, event.data.conversationId, null);
        default: {
          const unreachable: never = event;
          throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
        }
      }
    },
  };
}
