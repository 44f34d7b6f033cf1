import type { RealtimeMessage } from '@chat/contracts/realtime';
import { ChatApiError } from './errors.js';

/** A message as REST returns it (the same resource a `message` frame carries). */
export type ChatMessage = RealtimeMessage;

export interface Conversation {
  conversationId: string;
  conversationType: 'user' | 'group';
  /** CometChat sends the count as a string. */
  unreadMessageCount: string | number;
  createdAt: number;
  updatedAt: number;
  lastMessage?: ChatMessage;
  conversationWith: Record<string, unknown> & ({ uid: string } | { guid: string });
  [field: string]: unknown;
}

/** A conversation from the acting user's side: the other user, or the group. */
export interface ConversationRef {
  receiverType: 'user' | 'group';
  receiver: string;
}

export interface SendMessageInput extends ConversationRef {
  category?: 'message' | 'custom';
  type?: string;
  data: Record<string, unknown>;
  muid?: string;
  tags?: string[];
}

export interface ListMessagesQuery {
  limit?: number;
  /** `prepend` (older than `id`/`sentAt`) or `append` (newer). */
  affix?: 'prepend' | 'append';
  id?: string;
  sentAt?: number;
  hideDeleted?: boolean;
}

export interface ListConversationsQuery {
  perPage?: number;
  page?: number;
  unread?: boolean;
  conversationType?: 'user' | 'group';
}

export interface Page<T> {
  data: T[];
  meta?: Record<string, unknown>;
}

export interface RestOptions {
  /** The chat host (`https://{appId}.api-{region}.{domain}`) or a plain host with `appId`. */
  baseUrl: string;
  /** The app, for a plain host (sent as the `appid` header). */
  appId?: string;
  /** The user's auth token: every call acts as that user. */
  authToken: string;
  fetch?: typeof fetch;
}

type Query = Record<string, string | number | boolean | undefined>;

/**
 * The REST calls a user's app makes for itself, authenticated by the user's auth token (`authtoken`
 * header, no API key in the app). Every failure throws a ChatApiError with CometChat's code.
 */
export class ChatRestClient {
  readonly #options: RestOptions;

  constructor(options: RestOptions) {
    this.#options = options;
  }

  sendMessage(input: SendMessageInput): Promise<ChatMessage> {
    return this.request<ChatMessage>('POST', '/messages', { body: { category: 'message', type: 'text', ...input } });
  }

  listConversations(query: ListConversationsQuery = {}): Promise<Page<Conversation>> {
    return this.request<Page<Conversation>>('GET', '/conversations', { query: { ...query }, page: true });
  }

  /** The messages of the user's conversation with `conversation` (newest last). */
  listMessages(conversation: ConversationRef, query: ListMessagesQuery = {}): Promise<Page<ChatMessage>> {
    return this.request<Page<ChatMessage>>('GET', `${peerPath(conversation)}/messages`, { query: { ...query }, page: true });
  }

  getMessage(id: string): Promise<ChatMessage> {
    return this.request<ChatMessage>('GET', `/messages/${encodeURIComponent(id)}`);
  }

  /** Everything up to and including `messageId` is read by the user (the others get a `read_receipt`). */
  async markRead(conversation: ConversationRef, messageId: string): Promise<void> {
    await this.request('POST', `${peerPath(conversation)}/conversation/read`, { body: { messageId: Number(messageId) } });
  }

  async markDelivered(conversation: ConversationRef, messageId: string): Promise<void> {
    await this.request('POST', `${peerPath(conversation)}/conversation/delivered`, { body: { messageId: Number(messageId) } });
  }

  /** Adds the user's reaction; answers the message with its reactions. */
  react(messageId: string, reaction: string): Promise<ChatMessage> {
    return this.request<ChatMessage>('POST', reactionPath(messageId, reaction));
  }

  unreact(messageId: string, reaction: string): Promise<ChatMessage> {
    return this.request<ChatMessage>('DELETE', reactionPath(messageId, reaction));
  }

  /**
   * Any chat API call as the user: `path` below `/v3`. Answers `data` (or the whole body for a page).
   * Exposed for the operations this client has no method for yet.
   */
  async request<T = unknown>(method: string, path: string, options: { query?: Query; body?: unknown; page?: boolean } = {}): Promise<T> {
    const url = new URL(`/v3${path}`, this.#options.baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: 'application/json', authtoken: this.#options.authToken };
    if (this.#options.appId !== undefined) headers['appid'] = this.#options.appId;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const fetchImpl = this.#options.fetch ?? globalThis.fetch;
    let response: Response;
    try {
      response = await fetchImpl(url, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
    } catch (error) {
      throw new ChatApiError(0, 'ERR_NETWORK', `${method} ${path} got no answer.`, undefined, { cause: error });
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) throw ChatApiError.fromResponse(response.status, body);
    if (typeof body !== 'object' || body === null || !('data' in body)) {
      throw new ChatApiError(response.status, 'ERR_UNEXPECTED_RESPONSE', `${method} ${path} answered ${response.status} without data.`);
    }
    return (options.page ? body : body.data) as T;
  }
}

function peerPath({ receiverType, receiver }: ConversationRef): string {
  return `/${receiverType === 'group' ? 'groups' : 'users'}/${encodeURIComponent(receiver)}`;
}

function reactionPath(messageId: string, reaction: string): string {
  return `/messages/${encodeURIComponent(messageId)}/reactions/${encodeURIComponent(reaction)}`;
}
