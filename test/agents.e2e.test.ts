import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { AgUiAgent } from './support/agUiAgent.js';
import { done, sendMessage, text } from './support/messages.js';
import { expectError } from './support/users.js';

let app: TestApp;
const agents: AgUiAgent[] = [];

async function agent(answer: (question: string) => string, mode: 'answer' | 'hang' | 'fail' = 'answer'): Promise<AgUiAgent> {
  const started = await new AgUiAgent(answer, mode).start();
  agents.push(started);
  return started;
}

function register(uid: string, url: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return app.call('POST', '/v3/ai-agents/agents', {
    body: { uid, name: `Agent ${uid}`, integrateWith: 'ag-ui', integrationType: 'agent', integrationMeta: { url, headers } },
  });
}

function conversationWith(viewer: string, peer: string): Promise<ApiResponse> {
  return app.call('GET', `/v3/users/${peer}/messages?perPage=100`, { onBehalfOf: viewer });
}

beforeAll(async () => {
  app = await createApp('agents');
  await Promise.all(['alice', 'helper', 'sleepy', 'broken'].map((uid) => createUser(app, uid)));
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop()));
});

describe('BYO agents over AG-UI', () => {
  it('a message to an agent gets its streamed answer back as the agent’s message', async () => {
    const local = await agent((question) => `You asked: "${question}". The answer is 4.`);
    const created = await register('helper', local.url, { authorization: 'Bearer agent-secret' });
    expect(created.status).toBe(201);
    expect(created.body.agent).toMatchObject({ uid: 'helper', integrateWith: 'ag-ui', integrationMeta: { url: local.url, headers: { authorization: '********' } } });

    const asked = await done(sendMessage(app, 'alice', text('helper', 'What is 2+2?')));
    const seen = await eventually(() => conversationWith('alice', 'helper'), (r) => (r.body.data as any[]).some((m) => m.sender === 'helper'), 15_000);
    const reply = (seen.body.data as any[]).find((m) => m.sender === 'helper');
    expect(reply).toMatchObject({ receiver: 'alice', category: 'message', type: 'text', data: { text: 'You asked: "What is 2+2?". The answer is 4.' } });
    expect(reply.data.metadata.agent).toEqual({ uid: 'helper', inReplyTo: asked.body.data.id });
    // The agent got a RunAgentInput for the conversation, with the configured header.
    expect(local.runs).toHaveLength(1);
    expect(local.runs[0]!.headers['authorization']).toBe('Bearer agent-secret');
    expect(local.runs[0]!.input).toMatchObject({ threadId: asked.body.data.conversationId, messages: [{ id: asked.body.data.id, role: 'user', content: 'What is 2+2?' }] });

    // Listed without its header values.
    const listed = await done(app.call('GET', '/v3/ai-agents/agents'));
    expect(JSON.stringify(listed.body)).not.toContain('agent-secret');
  });

  it('answers in a group where it is mentioned, and only there', async () => {
    await done(app.call('POST', '/v3/groups', { body: { guid: 'with-agent', name: 'With agent', type: 'public', owner: 'alice', members: { participants: ['helper'] } } }));
    await done(sendMessage(app, 'alice', text('with-agent', 'no mention here', 'group')));
    await eventually(
      () => sendMessage(app, 'alice', text('with-agent', '<@uid:helper> are you there?', 'group')),
      (r) => r.status === 200,
    );
    const messages = await eventually(
      () => app.call('GET', '/v3/groups/with-agent/messages?limit=100', { onBehalfOf: 'alice' }),
      (r) => (r.body.data as any[]).some((m) => m.sender === 'helper'),
      15_000,
    );
    const replies = (messages.body.data as any[]).filter((m) => m.sender === 'helper' && m.category === 'message');
    expect(replies.map((m) => m.data.text)).toEqual(['You asked: "<@uid:helper> are you there?". The answer is 4.']);
  });

  it('an agent that does not finish in time, or fails, leaves a clear action message instead of a hang', async () => {
    const hanging = await agent(() => '', 'hang');
    const failing = await agent(() => '', 'fail');
    expect((await register('sleepy', hanging.url)).status).toBe(201);
    expect((await register('broken', failing.url)).status).toBe(201);
    await done(sendMessage(app, 'alice', text('sleepy', 'hello?')));
    await done(sendMessage(app, 'alice', text('broken', 'hello?')));
    const timedOut = await eventually(() => conversationWith('alice', 'sleepy'), (r) => (r.body.data as any[]).some((m) => m.category === 'action'), 20_000);
    expect((timedOut.body.data as any[]).find((m) => m.category === 'action')).toMatchObject({
      sender: 'sleepy',
      type: 'agent',
      data: { action: 'failed', text: 'Agent sleepy could not answer: the agent did not finish within 3 s.' },
    });
    const failed = await eventually(() => conversationWith('alice', 'broken'), (r) => (r.body.data as any[]).some((m) => m.category === 'action'), 20_000);
    expect((failed.body.data as any[]).find((m) => m.category === 'action').data.text).toBe('Agent broken could not answer: the model is unavailable.');
  });

  it('tools and integrations: create, update, list, delete', async () => {
    const tool = await app.call('POST', '/v3/ai-agents/tools', { body: { name: 'get_weather', displayName: 'Get Weather', executionText: 'Fetching…', description: 'Weather for a city' } });
    expect(tool.status).toBe(201);
    expect(tool.body).toMatchObject({ name: 'get_weather', type: 'action', tool: { name: 'get_weather', description: 'Weather for a city' } });
    await done(app.call('PATCH', '/v3/ai-agents/tools/get_weather', { body: { description: 'Weather anywhere' } }));
    await done(app.call('PATCH', '/v3/ai-agents/agents/helper', { body: { tools: ['get_weather'] } }));
    expectError(await app.call('DELETE', '/v3/ai-agents/tools/get_weather'), 409, 'ERR_TOOL_IN_USE', 'helper');
    const tools = await done(app.call('GET', '/v3/ai-agents/tools'));
    expect((tools.body.data as any[]).map((t) => t.tool.description)).toEqual(['Weather anywhere']);
    const integrations = await done(app.call('GET', '/v3/ai-agents/integrations'));
    expect((integrations.body.data as any[]).map((i) => i.id)).toEqual(['ag-ui']);
    await done(app.call('PATCH', '/v3/ai-agents/agents/helper', { body: { tools: [] } }));
    await done(app.call('DELETE', '/v3/ai-agents/tools/get_weather'));
    expect((await done(app.call('GET', '/v3/ai-agents/tools'))).body.data).toEqual([]);
  });

  it('bad input: a clear 4xx and no agent changed', async () => {
    const before = await done(app.call('GET', '/v3/ai-agents/agents'));
    const base = { name: 'x', integrateWith: 'ag-ui', integrationType: 'agent' };
    expectError(await app.call('POST', '/v3/ai-agents/agents', { body: { ...base, uid: 'alice', integrationMeta: { url: 'ftp://example.com/agent' } } }), 400, 'ERR_AGENT_URL_NOT_ALLOWED', 'ftp');
    expectError(await app.call('POST', '/v3/ai-agents/agents', { body: { ...base, uid: 'alice', integrationMeta: { url: 'not a url' } } }), 400, 'ERR_AGENT_URL_NOT_ALLOWED');
    expectError(await app.call('POST', '/v3/ai-agents/agents', { body: { ...base, uid: 'nobody', integrationMeta: { url: 'http://127.0.0.1:9/' } } }), 404, 'ERR_UID_NOT_FOUND', 'nobody');
    expectError(await app.call('POST', '/v3/ai-agents/agents', { body: { ...base, uid: 'helper', integrationMeta: { url: 'http://127.0.0.1:9/' } } }), 409, 'ERR_AGENT_ALREADY_EXISTS');
    expectError(await app.call('POST', '/v3/ai-agents/agents', { body: { ...base, integrateWith: 'mastra', uid: 'alice', integrationMeta: { url: 'http://127.0.0.1:9/' } } }), 400, 'ERR_BAD_REQUEST', 'integrateWith');
    expectError(await app.call('POST', '/v3/ai-agents/agents', { body: { ...base, uid: 'alice', integrationMeta: { url: 'http://127.0.0.1:9/' }, tools: ['no-such-tool'] } }), 404, 'ERR_TOOL_NOT_FOUND');
    expectError(await app.call('POST', '/v3/ai-agents/agents', { body: { ...base, uid: 'alice', integrationMeta: { url: 'http://127.0.0.1:9/', headers: { 'bad header': 'x' } } } }), 400, 'ERR_BAD_REQUEST', 'integrationMeta');
    expectError(await app.call('PATCH', '/v3/ai-agents/agents/nobody', { body: { isActive: false } }), 404, 'ERR_AGENT_NOT_FOUND');
    expectError(await app.call('PATCH', '/v3/ai-agents/agents/helper', { body: { isActive: 'yes' } }), 400, 'ERR_BAD_REQUEST', 'isActive');
    expectError(await app.call('PATCH', '/v3/ai-agents/agents/helper', { body: { integrationMeta: { url: 'javascript:alert(1)' } } }), 400, 'ERR_AGENT_URL_NOT_ALLOWED');
    expectError(await app.call('POST', '/v3/ai-agents/tools', { body: { name: '9lives', displayName: 'x', executionText: 'x' } }), 400, 'ERR_BAD_REQUEST', 'name');
    expectError(await app.call('DELETE', '/v3/ai-agents/agents/nobody'), 404, 'ERR_AGENT_NOT_FOUND');
    expect((await done(app.call('GET', '/v3/ai-agents/agents'))).body).toEqual(before.body);
  });
});
