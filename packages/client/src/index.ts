// @chat/client: a user's typed client of the chat platform, for browsers and Node (README.md).
export { ChatClient } from './chatClient.js';
export type { ChatClientOptions } from './chatClient.js';
export { ChatRestClient } from './rest.js';
export type { ChatMessage, Conversation, ConversationRef, ListConversationsQuery, ListMessagesQuery, Page, RestOptions, SendMessageInput } from './rest.js';
export { ChatApiError } from './errors.js';
export { RealtimeConnection } from './realtimeConnection.js';
export type { ConnectionState, RealtimeEvents, RealtimeOptions } from './realtimeConnection.js';
export { backoffDelay } from './backoff.js';
export type { BackoffOptions } from './backoff.js';
export { TypingThrottle } from './typing.js';
export type { TypingOptions, TypingTarget } from './typing.js';
export type { EventSourceConstructor, EventSourceLike, TransportKind, WebSocketConstructor, WebSocketLike } from './transports.js';
export type {
  RealtimeDeliveryReceipt,
  RealtimeMessage,
  RealtimeMessageChange,
  RealtimePresence,
  RealtimeReaction,
  RealtimeReadReceipt,
  RealtimeTyping,
  ServerFrame,
  ServerFrameOf,
} from '@chat/contracts/realtime';
