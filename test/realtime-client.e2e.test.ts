import { ChatApiError, ChatClient } from '@chat/client';
import type { ChatMessage } from '@chat/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { checkedFetch } from './support/responseContract.js';
import { createUsers } from './support/groups.js';
import { authToken } from './support/realtime.js';

/** `ws`'s WebSocket, keeping each socket the client opens so a test can cut one as a network would. */
const sockets: WebSocket[] = [];
class TrackedWebSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args);
    sockets.push(this);
  }
}

/** Resolves with the first value `register` hands its callback, or fails after `ms`. */
function first<T>(register: (resolve: (value: T) => void) => void, ms = 10_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

// @chat/client (ADR 0075) against the real gateway and realtime service: REST as the token's user,
// the socket's frames, and a resume after a drop that loses and repeats nothing.
describe('@chat/client through the gateway', () => {
  let app: TestApp;
  const clients: ChatClient[] = [];
  const clientOf = async (uid: string) => {
    const client = new ChatClient({ baseUrl: inject('gatewayUrl'), appId: app.appId, authToken: await authToken(app, uid), WebSocket: TrackedWebSocket, fetch: checkedFetch });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    app = await createApp('client package');
    await createUsers(app, 'ann', 'ben');
  });
  afterAll(() => {
    for (const client of clients) client.close();
  });

  it('sends as its user over REST and receives the peer\'s message as REST shows it', async () => {
    const ann = await clientOf('ann');
    const ben = await clientOf('ben');
    const live = ben.connect();
    await first<unknown>((resolve) => live.on('open', resolve));
    const received = first<ChatMessage>((resolve) => live.on('message', (message) => resolve(message)));
    const sent = await ann.sendMessage({ receiver: 'ben', receiverType: 'user', data: { text: 'hello ben' } });
    expect(sent.sender).toBe('ann');
    const message = await received;
    expect(message).toEqual(await ben.getMessage(String(sent.id)));
    await expect(ann.request('GET', '/apikeys')).rejects.toMatchObject({ status: 403, code: 'AUTH_ERR_NO_ACCESS' });
    await expect(ann.request('GET', '/apikeys')).rejects.toBeInstanceOf(ChatApiError);
  });

  it('resumes after its socket is cut: every message once, in order', async () => {
    const ann = await clientOf('ann');
    const ben = await clientOf('ben');
    const live = ben.connect();
    await first<unknown>((resolve) => live.on('open', resolve));
    const seen: string[] = [];
    live.on('message', (message) => {
      if (String(message.data['text']).startsWith('resume ')) seen.push(String(message.data['text']));
    });
    const texts = Array.from({ length: 6 }, (_, i) => `resume ${i}`);
    for (const text of texts.slice(0, 3)) await ann.sendMessage({ receiver: 'ben', receiverType: 'user', data: { text } });
    await first<void>((resolve) => {
      const check = setInterval(() => seen.length === 3 && (clearInterval(check), resolve()), 20);
    });
    const reopened = first<{ resumedFrom?: string }>((resolve) => live.on('open', (info) => resolve(info)));
    // Cut the socket under the client (as a network drop would); it reconnects by itself.
    const terminate = first<void>((resolve) => live.on('disconnected', () => resolve()));
    sockets.at(-1)!.terminate();
    for (const text of texts.slice(3)) await ann.sendMessage({ receiver: 'ben', receiverType: 'user', data: { text } });
    await terminate;
    expect((await reopened).resumedFrom).toBeDefined();
    await first<void>((resolve) => {
      const check = setInterval(() => seen.length >= 6 && (clearInterval(check), resolve()), 20);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen).toEqual(texts);
  });
});
