import type { ConversationPinned, ConversationUnpinned, EventEnvelope, MessageSent } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import type { UserConversationDoc } from '../domain/conversationView.js';

type Handled =
  | EventEnvelope<'MessageSent', MessageSent>
  | EventEnvelope<'ConversationPinned', ConversationPinned>
  | EventEnvelope<'ConversationUnpinned', ConversationUnpinned>;

export function userConversationDocId(appId: string, owner: string, conversationId: string): string {
  return `${appId}:${owner}:${conversationId}`;
}

function emptyDoc(appId: string, owner: string, peer: string, conversationId: string, at: number): UserConversationDoc {
  return {
    appId,
    owner,
    conversationId,
    conversationType: 'user',
    peer,
    hasMessages: false,
    createdAt: at,
    updatedAt: at,
    unreadCount: 0,
    lastMessageSeq: 0,
  };
}

function lastMessageOf(message: MessageSent): string {
  return JSON.stringify({
    id: message.id,
    conversationId: message.conversationId,
    sender: message.sender,
    receiverType: message.receiverType,
    receiver: message.receiver,
    category: message.category,
    type: message.type,
    data: message.data,
    ...(message.tags ? { tags: message.tags } : {}),
    sentAt: message.sentAt,
    updatedAt: message.sentAt,
  });
}

/** Each participant's view of one-on-one conversations, from messages and that user's pins. */
export const userConversationsProjection: Projection<UserConversationDoc, Handled> = {
  name: 'user_conversations',

  canHandle(event: EventEnvelope): event is Handled {
    if (event.type === 'MessageSent') return (event.data as MessageSent).receiverType === 'user';
    if (event.type === 'ConversationPinned' || event.type === 'ConversationUnpinned') {
      return (event.data as ConversationPinned).conversationType === 'user';
    }
    return false;
  },

  documentIds(event) {
    if (event.type === 'MessageSent') {
      const { sender, receiver, conversationId } = event.data;
      return [
        userConversationDocId(event.appId, sender, conversationId),
        userConversationDocId(event.appId, receiver, conversationId),
      ];
    }
    return [userConversationDocId(event.appId, event.data.uid, event.data.conversationId)];
  },

  sourceOf(event) {
    return event.type === 'MessageSent' ? 'messages' : 'pins';
  },

  evolve(doc, event, documentId) {
    switch (event.type) {
      case 'MessageSent': {
        const message = event.data;
        const owner = documentId === userConversationDocId(event.appId, message.sender, message.conversationId)
          ? message.sender
          : message.receiver;
        const peer = owner === message.sender ? message.receiver : message.sender;
        const base = doc ?? emptyDoc(event.appId, owner, peer, message.conversationId, message.sentAt);
        return {
          ...base,
          hasMessages: true,
          createdAt: base.hasMessages ? base.createdAt : message.sentAt,
          updatedAt: Math.max(base.updatedAt, message.sentAt),
          lastMessage: lastMessageOf(message),
          lastMessageSeq: Number(message.id) || 0,
          // A user's own messages never count as unread for that user.
          unreadCount: owner === message.sender ? base.unreadCount : base.unreadCount + 1,
        };
      }
      case 'ConversationPinned': {
        const { appId } = event;
        const { uid, conversationWith, conversationId, pinnedAt } = event.data;
        const base = doc ?? emptyDoc(appId, uid, conversationWith, conversationId, pinnedAt);
        return { ...base, pinnedAt, pinOrder: event.version };
      }
      case 'ConversationUnpinned': {
        if (!doc) return null;
        const { pinnedAt, pinOrder, ...unpinned } = doc;
        void pinnedAt;
        void pinOrder;
        return unpinned;
      }
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
