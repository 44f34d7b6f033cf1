import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatApiError } from './errors.js';
import { ChatClient } from './chatClient.js';
import { RealtimeTestServer } from './realtimeTestServer.js';

let server: RealtimeTestServer;
const requests: { method?: string; url?: string; headers: Record<string, unknown>; body: string }[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{"data":{}}' };

beforeEach(async () => {
  server = await RealtimeTestServer.start();
  requests.length = 0;
  server.rest = (req, res, body) => {
    requests.push({ method: req.method, url: req.url, headers: req.headers, body });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  };
});
afterEach(() => server.stop());

const client = () => new ChatClient({ baseUrl: server.url, appId: 'app1', authToken: 'token-alice' });
const message = { id: '9', conversationId: 'alice_user_bob', sender: 'alice', receiverType: 'user', receiver: 'bob', category: 'message', type: 'text', data: { text: 'hi' }, sentAt: 1, updatedAt: 1 };

describe('ChatRestClient', () => {
  it('sends a message as the token\'s user and answers the message', async () => {
    answer = { status: 200, body: JSON.stringify({ data: message }) };
    const sent = await client().sendMessage({ receiver: 'bob', receiverType: 'user', data: { text: 'hi' } });
    expect(sent).toEqual(message);
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/v3/messages', headers: { authtoken: 'token-alice', appid: 'app1', 'content-type': 'application/json' } });
    expect(requests[0]!.headers['apikey']).toBeUndefined();
    expect(JSON.parse(requests[0]!.body)).toEqual({ category: 'message', type: 'text', receiver: 'bob', receiverType: 'user', data: { text: 'hi' } });
  });

  it('lists conversations and a conversation\'s messages as pages', async () => {
    answer = { status: 200, body: JSON.stringify({ data: [message], meta: { current: { limit: 2 } } }) };
    const page = await client().listMessages({ receiverType: 'group', receiver: 'team one' }, { limit: 2, affix: 'prepend', id: '9' });
    expect(page.data).toEqual([message]);
    expect(page.meta).toEqual({ current: { limit: 2 } });
    await client().listConversations({ unread: true });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v3/groups/team%20one/messages?limit=2&affix=prepend&id=9', 'GET /v3/conversations?unread=true']);
  });

  it('marks read with the numeric message id, and reacts with the reaction in the path', async () => {
    answer = { status: 200, body: JSON.stringify({ data: { success: true } }) };
    await client().markRead({ receiverType: 'user', receiver: 'bob' }, '9');
    answer = { status: 200, body: JSON.stringify({ data: message }) };
    await client().react('9', '👍');
    await client().unreact('9', '👍');
    expect(requests.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      'POST /v3/users/bob/conversation/read {"messageId":9}',
      'POST /v3/messages/9/reactions/%F0%9F%91%8D ',
      'DELETE /v3/messages/9/reactions/%F0%9F%91%8D ',
    ]);
  });

  it('throws CometChat\'s error with its code, message and status', async () => {
    answer = { status: 404, body: JSON.stringify({ error: { code: 'ERR_UID_NOT_FOUND', message: 'The UID bob does not exist.', details: { uid: 'bob' } } }) };
    const error = await client().getMessage('9').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatApiError);
    expect(error).toMatchObject({ status: 404, code: 'ERR_UID_NOT_FOUND', message: 'The UID bob does not exist.', details: { details: { uid: 'bob' } } });
  });

  it('names an answer without CometChat\'s error shape, and a server that does not answer', async () => {
    answer = { status: 502, body: '<html>bad gateway</html>' };
    await expect(client().listConversations()).rejects.toMatchObject({ status: 502, code: 'ERR_UNEXPECTED_RESPONSE' });
    answer = { status: 200, body: '{"nodata":true}' };
    await expect(client().listConversations()).rejects.toMatchObject({ status: 200, code: 'ERR_UNEXPECTED_RESPONSE' });
    const url = server.url;
    await server.stop();
    const offline = new ChatClient({ baseUrl: url, authToken: 't' });
    await expect(offline.listConversations()).rejects.toMatchObject({ status: 0, code: 'ERR_NETWORK' });
    server = await RealtimeTestServer.start();
  });
});
