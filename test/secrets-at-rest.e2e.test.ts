import { randomBytes, randomUUID } from 'node:crypto';
import { topics } from '@chat/contracts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { checkedFetch } from './support/responseContract.js';
import { AgUiAgent } from './support/agUiAgent.js';
import { everyMessage, readBack } from './support/kafka.js';
import { done, sendMessage, text } from './support/messages.js';
import { everyDocument } from './support/mongo.js';
import { everyRedisEntry } from './support/redis.js';

/**
 * Data at rest (issue 22, item 3; ADR 0039): a credential the platform hands out or is given is
 * nowhere in Redis, MongoDB or Kafka in plaintext, nor base64-encoded, after the requests that
 * carry it; the replay still answers with it and the agent still receives it.
 */

/** The secret as text and as base64 / base64url at each of the three byte alignments it can have inside a longer value. */
function formsOf(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret)];
  for (const encoding of ['base64', 'base64url'] as const) {
    for (let shift = 0; shift < 3; shift++) {
      const encoded = Buffer.from(`${'\0'.repeat(shift)}${secret}`).toString(encoding);
      // Characters that also encode the bytes before or after the secret are left out.
      forms.push(encoded.slice(Math.ceil((8 * shift) / 6), encoded.length - 4));
    }
  }
  return forms;
}

function expectNowhere(secret: string, where: string, entries: readonly string[]): void {
  for (const form of formsOf(secret)) {
    const holder = entries.find((entry) => entry.includes(form));
    expect(holder === undefined ? 'nowhere' : `${where}: ${holder.slice(0, 300)}`, `"${form}" (a form of the secret)`).toBe('nowhere');
  }
}

/** A chat call answered as raw bytes, so a replay is compared byte for byte. */
async function rawCall(app: TestApp, path: string, body: unknown, idempotencyKey: string) {
  const response = await checkedFetch(`${inject('gatewayUrl')}${path}`, {
    method: 'POST',
    headers: { appId: app.appId, apikey: app.fullAccessKey, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), replayed: response.headers.get('idempotent-replayed') };
}

let app: TestApp;
const agents: AgUiAgent[] = [];

beforeAll(async () => {
  app = await createApp('secrets at rest');
  await Promise.all(['holder', 'asker', 'vault-bot'].map((uid) => createUser(app, uid)));
});

afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.stop()));
});

describe('Idempotency-Key answers at rest', () => {
  it('an auth token and an API key issued with an Idempotency-Key are not in Redis, and their replays answer with them', async () => {
    const tokenKey = randomUUID();
    const issued = await rawCall(app, '/v3/users/holder/auth_tokens', { force: true }, tokenKey);
    expect(issued.status).toBe(200);
    const authToken = (JSON.parse(issued.text) as { data: { authToken: string } }).data.authToken;
    expect(authToken.length).toBeGreaterThan(10);

    const apiKeyKey = randomUUID();
    const created = await rawCall(app, '/v3/apikeys', { name: 'ci', scope: 'authOnly' }, apiKeyKey);
    expect(created.status).toBe(200);
    const apiKey = (JSON.parse(created.text) as { data: { apiKey: string } }).data.apiKey;
    expect(apiKey).toMatch(/^[0-9a-f]{40}$/);

    // The replays answer byte for byte as the first requests did (and ran nothing again).
    const tokenAgain = await rawCall(app, '/v3/users/holder/auth_tokens', { force: true }, tokenKey);
    expect(tokenAgain).toEqual({ status: 200, text: issued.text, replayed: 'true' });
    const keyAgain = await rawCall(app, '/v3/apikeys', { name: 'ci', scope: 'authOnly' }, apiKeyKey);
    expect(keyAgain).toEqual({ status: 200, text: created.text, replayed: 'true' });

    const entries = await everyRedisEntry();
    // The answers are there (sealed): the scan saw the records the replays came from.
    expect(entries.filter((entry) => entry.startsWith(`gateway:idem:${app.appId}:`))).toHaveLength(2);
    expectNowhere(authToken, 'redis', entries);
    expectNowhere(apiKey, 'redis', entries);
  });
});

describe('agent credential headers at rest', () => {
  it('are sealed in every collection and on every topic, and the agent still receives them', async () => {
    const bearer = `Bearer ${randomBytes(24).toString('hex')}`;
    const apiKeyHeader = randomBytes(20).toString('base64url');
    const agent = await new AgUiAgent((question) => `echo: ${question}`).start();
    agents.push(agent);
    const created = await app.call('POST', '/v3/ai-agents/agents', {
      body: { uid: 'vault-bot', name: 'Vault', integrateWith: 'ag-ui', integrationType: 'agent', integrationMeta: { url: agent.url, headers: { authorization: 'Bearer first' } } },
    });
    expect(created.status).toBe(201);
    // Changed headers are sealed too; REST answers keep masking them.
    const updated = await app.call('PATCH', '/v3/ai-agents/agents/vault-bot', {
      body: { integrationMeta: { url: agent.url, headers: { authorization: bearer, 'x-api-key': apiKeyHeader } } },
    });
    expect(updated.status).toBe(200);
    const listed = await app.call('GET', '/v3/ai-agents/agents');
    expect(listed.body.data[0].integrationMeta.headers).toEqual({ authorization: '********', 'x-api-key': '********' });

    await done(sendMessage(app, 'asker', text('vault-bot', 'open sesame')));
    await eventually(async () => agent.runs.length, (runs) => runs > 0, 15_000);
    expect(agent.runs[0]!.headers['authorization']).toBe(bearer);
    expect(agent.runs[0]!.headers['x-api-key']).toBe(apiKeyHeader);

    // The update is on the topic, with sealed values: the scan below reads the event that would hold them.
    const saved = await readBack(topics.messages, (v) => v['type'] === 'AgentSaved' && (v['data'] as any).agent.uid === 'vault-bot' && (v['data'] as any).agent.integrationMeta.headers['x-api-key'] !== undefined);
    expect((saved.value['data'] as any).agent.integrationMeta.headers.authorization).toMatch(/^v2\.[0-9a-f]{8}\./);

    const [documents, messages] = await Promise.all([everyDocument(), everyMessage()]);
    expect(documents.some((doc) => doc.includes('vault-bot') && doc.includes('AgentSaved'))).toBe(true);
    expect(messages.some((message) => message.includes('vault-bot') && message.includes('AgentSaved'))).toBe(true);
    for (const secret of [bearer.slice('Bearer '.length), apiKeyHeader]) {
      expectNowhere(secret, 'mongo', documents);
      expectNowhere(secret, 'kafka', messages);
    }
  });
});
