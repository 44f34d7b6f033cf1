import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { AgUiAgent } from './support/agUiAgent.js';
import { sendMessage, text } from './support/messages.js';
import { Redirector } from './support/redirector.js';
import { expectError, expectOk } from './support/users.js';
import { WebhookReceiver } from './support/webhookReceiver.js';
import { createWebhook, deliveries, manage } from './support/webhooks.js';

/**
 * Internal addresses in the spellings a tenant tries. The test stack allows 127.0.0.0/8 only
 * (`TENANT_URLS_ALLOW_PRIVATE`), so every one of these is refused here exactly as in production.
 */
const internal = [
  'http://10.0.0.1/hook',
  'http://10.1/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://2852039166/latest/meta-data/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://[::1]:3000/',
  'http://0.0.0.0:3104/',
  'http://100.64.0.1/',
  'http://192.168.1.1/',
  'http://[64:ff9b::7f00:1]/',
  'http://[2002:7f00:1::]/',
  'http://localhost:3104/v3/apps',
  'http://metadata.google.internal/',
  'http://management:3104/',
];

let app: TestApp;
const stops: Array<() => Promise<void>> = [];

async function started<T extends { start(): Promise<T>; stop(): Promise<void> }>(server: T): Promise<T> {
  await server.start();
  stops.push(() => server.stop());
  return server;
}

beforeAll(async () => {
  app = await createApp('tenant-urls');
  await Promise.all(['alice', 'bob', 'hopper', 'spy'].map((uid) => createUser(app, uid)));
});

afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()));
});

describe('webhook URLs', () => {
  it('an internal URL is refused with a 4xx naming webhookURL, and nothing is stored', async () => {
    const before = await manage('GET', `/apps/${app.appId}/webhooks`);
    for (const url of internal) {
      expectError(await manage('POST', `/apps/${app.appId}/webhooks`, { id: 'inside', name: 'inside', webhookURL: url }), 400, 'ERR_WEBHOOK_URL_NOT_ALLOWED', 'webhookURL');
    }
    expect((await manage('GET', `/apps/${app.appId}/webhooks`)).body).toEqual(before.body);
  });

  it('a redirect to an internal address is not followed: the 302 is the answer, logged as failed', async () => {
    const landing = await started(new WebhookReceiver());
    const hop = await started(new Redirector(landing.url));
    const { id } = await createWebhook(app, 'hop', hop.url, ['message_sent'], { retryOnFailure: false });
    expectOk(await sendMessage(app, 'alice', text('bob', 'follow me')));
    const log = await eventually(() => deliveries(app, id), (r) => r.body.data?.[0]?.status === 'failed', 15_000);
    expect(log.body.data[0]).toMatchObject({ status: 'failed', attempts: 1, responseCode: 302 });
    expect(hop.hits).toBe(1);
    await sleep(300);
    expect(landing.received).toHaveLength(0);
  });
});

describe('custom notification provider URLs', () => {
  it('an internal URL is refused with a 4xx naming webhookURL, on every channel, and nothing is stored', async () => {
    for (const channel of ['push', 'sms', 'email']) {
      const path = `/v3/notifications/${channel}/v1/providers/custom`;
      const before = await app.call('GET', path);
      for (const url of internal) {
        expectError(await app.call('POST', path, { body: { isEnabled: true, webhookURL: url, useBasicAuth: false } }), 400, 'ERR_PROVIDER_URL_NOT_ALLOWED', 'webhookURL');
      }
      expect((await app.call('GET', path)).body).toEqual(before.body);
    }
  });

  it('a redirect to an internal address is not followed: the push is logged as not delivered', async () => {
    const landing = await started(new WebhookReceiver());
    const hop = await started(new Redirector(landing.url));
    expectOk(await app.call('POST', '/v3/notifications/push/v1/providers/custom', { body: { isEnabled: true, webhookURL: hop.url, useBasicAuth: false } }));
    for (const uid of ['alice', 'bob']) await eventually(() => app.call('GET', `/v3/notifications/v1/preferences?uid=${uid}`), (r) => r.status === 200);
    const messageId = expectOk(await sendMessage(app, 'alice', text('bob', 'push me around'))).data.id as string;
    const logs = await eventually(
      () => app.call('GET', `/v3/notifications/v1/logs?messageId=${messageId}`),
      (r) => r.status === 200 && r.body.data.length > 0,
      15_000,
    );
    expect(logs.body.data[0]).toMatchObject({ provider: 'custom', success: false, statusCode: 302 });
    expect(hop.hits).toBeGreaterThan(0);
    await sleep(300);
    expect(landing.received).toHaveLength(0);
  });
});

describe('BYO agent URLs and headers', () => {
  const agentBody = (uid: string, url: string, headers: Record<string, string> = {}) => ({
    uid,
    name: `Agent ${uid}`,
    integrateWith: 'ag-ui',
    integrationType: 'agent',
    integrationMeta: { url, headers },
  });

  it('an internal URL is refused with a 4xx naming integrationMeta.url, on create and on update, and nothing is stored', async () => {
    const before = await app.call('GET', '/v3/ai-agents/agents');
    for (const url of internal) {
      expectError(await app.call('POST', '/v3/ai-agents/agents', { body: agentBody('spy', url) }), 400, 'ERR_AGENT_URL_NOT_ALLOWED', 'integrationMeta.url');
    }
    expect((await app.call('GET', '/v3/ai-agents/agents')).body).toEqual(before.body);
  });

  it('the platform’s identity headers, hop-by-hop headers and broken values are refused, naming the header', async () => {
    const local = await started(new AgUiAgent(() => 'never asked'));
    for (const [name, value] of [
      ['x-chat-app-id', 'another-app'],
      ['X-Chat-Scope', 'fullAccess'],
      ['x-chat-management', '1'],
      ['connection', 'close'],
      ['Transfer-Encoding', 'chunked'],
      ['host', 'management'],
      ['proxy-authorization', 'Basic eDp5'],
      ['x-token', 'a\r\nx-chat-scope: fullAccess'],
    ] as const) {
      expectError(await app.call('POST', '/v3/ai-agents/agents', { body: agentBody('spy', local.url, { [name]: value }) }), 400, 'ERR_BAD_REQUEST', `integrationMeta.headers.${name}`);
    }
    expect((await app.call('GET', '/v3/ai-agents/agents')).body.data.map((a: { uid: string }) => a.uid)).not.toContain('spy');
    // An agent saved with acceptable headers cannot be changed to refused ones either.
    expect((await app.call('POST', '/v3/ai-agents/agents', { body: agentBody('spy', local.url, { authorization: 'Bearer fine' }) })).status).toBe(201);
    expectError(
      await app.call('PATCH', '/v3/ai-agents/agents/spy', { body: { integrationMeta: { url: local.url, headers: { 'x-chat-on-behalf-of': 'bob' } } } }),
      400,
      'ERR_BAD_REQUEST',
      'integrationMeta.headers.x-chat-on-behalf-of',
    );
    expectError(await app.call('PATCH', '/v3/ai-agents/agents/spy', { body: { integrationMeta: { url: 'http://169.254.169.254/' } } }), 400, 'ERR_AGENT_URL_NOT_ALLOWED', 'integrationMeta.url');
  });

  it('a redirect to an internal address is not followed: the run fails with a clear action message', async () => {
    const landing = await started(new AgUiAgent(() => 'you should not see this'));
    const hop = await started(new Redirector(landing.url));
    expect((await app.call('POST', '/v3/ai-agents/agents', { body: agentBody('hopper', hop.url) })).status).toBe(201);
    expectOk(await sendMessage(app, 'alice', text('hopper', 'where do you go?')));
    const seen = await eventually(
      () => app.call('GET', '/v3/users/hopper/messages?perPage=100', { onBehalfOf: 'alice' }),
      (r) => (r.body.data as any[])?.some((m) => m.sender === 'hopper'),
      15_000,
    );
    const replies = (seen.body.data as any[]).filter((m) => m.sender === 'hopper');
    expect(replies).toEqual([expect.objectContaining({ category: 'action', type: 'agent', data: expect.objectContaining({ action: 'failed', text: 'Agent hopper could not answer: the agent answered HTTP 302.' }) })]);
    expect(hop.hits).toBe(1);
    expect(landing.runs).toHaveLength(0);
  });
});
