import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createApp, eventually, managementHeaders } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { expectError, expectOk } from './support/users.js';

/** A 200's `data`. */
function dataOf<T = any>(response: ApiResponse): T {
  return (expectOk(response) as { data: T }).data;
}

/**
 * The per-key audit trail (ours, ADR 0034): two keys of one app do different things, and each key's
 * trail lists exactly what it did, newest first, paged like every list; nobody else sees it.
 */

interface AuditEntry {
  eventId: string;
  type: string;
  streamId: string;
  version: number;
  onBehalfOf: string | null;
  scope: string;
  requestId: string;
  imported: boolean;
  occurredAt: number;
  occurredAtMs: number;
}

let app: TestApp;
let other: TestApp;
/** The app's first REST key (A) and a second one it creates (B), by key id. */
let keyA: string;
let keyB: string;
let fullKeyB: string;
let authOnlyKeyId: string;

function audit(keyRef: string, query = '', caller: TestApp = app, apiKey?: string): Promise<ApiResponse> {
  return caller.call('GET', `/v3/apikeys/${keyRef}/audit${query ? `?${query}` : ''}`, apiKey ? { apiKey } : {});
}

async function trail(keyRef: string, query = 'perPage=1000'): Promise<AuditEntry[]> {
  return dataOf<AuditEntry[]>(await audit(keyRef, query));
}

/** Waits until the key's trail holds every expected type (the trail is a projection of the topics). */
async function trailWith(keyRef: string, types: readonly string[]): Promise<AuditEntry[]> {
  return eventually(
    () => trail(keyRef),
    (entries) => types.every((t) => entries.some((e) => e.type === t)),
    30_000,
  );
}

/**
 * Waits for the expected types, then until the trail stops changing for a second: events the services
 * derive from a request (action messages, receipts) reach the trail a little after the request's own.
 */
async function settledTrail(keyRef: string, types: readonly string[]): Promise<void> {
  let last = JSON.stringify(await trailWith(keyRef, types));
  for (let rounds = 0; rounds < 30; rounds++) {
    await sleep(1_000);
    const now = JSON.stringify(await trail(keyRef));
    if (now === last) return;
    last = now;
  }
}

async function keyIdOf(apiKey: string): Promise<string> {
  return dataOf<{ keyId: string }>(await app.call('GET', `/v3/apikeys/${apiKey}`)).keyId;
}

beforeAll(async () => {
  [app, other] = await Promise.all([createApp('audit'), createApp('audit other')]);
  keyA = await keyIdOf(app.fullAccessKey);
  authOnlyKeyId = await keyIdOf(app.authOnlyKey);
  const created = dataOf<{ apiKey: string; keyId: string }>(await app.call('POST', '/v3/apikeys', { body: { name: 'second', scope: 'fullAccess' } }));
  [fullKeyB, keyB] = [created.apiKey, created.keyId];

  // Key A: two users and a message on behalf of one of them.
  for (const uid of ['alice', 'bob']) expectOk(await app.call('POST', '/v3/users', { body: { uid, name: uid } }));
  expectOk(await app.call('POST', '/v3/messages', { onBehalfOf: 'alice', body: { receiver: 'bob', receiverType: 'user', type: 'text', data: { text: 'hi' } } }));
  // Key B: a user, a group, and a change to the group.
  const asB = { apiKey: fullKeyB };
  expectOk(await app.call('POST', '/v3/users', { ...asB, body: { uid: 'carol', name: 'carol' } }));
  expectOk(await app.call('POST', '/v3/groups', { ...asB, body: { guid: 'audited', name: 'Audited', type: 'public', owner: 'carol' } }));
  expectOk(await app.call('PUT', '/v3/groups/audited', { ...asB, body: { name: 'Audited, renamed' } }));
  // Key B imports a user with a creation time a year back: history, still audited under B.
  const yearAgo = Math.floor(Date.now() / 1000) - 365 * 24 * 3600;
  expectOk(await app.call('POST', '/v3/data_import/users', { ...asB, body: { users: { erin: { uid: 'erin', name: 'Erin', createdAt: yearAgo } } } }));
  // The auth-only key may create users, and that is audited too.
  expectOk(await app.call('POST', '/v3/users', { apiKey: app.authOnlyKey, body: { uid: 'dave', name: 'dave' } }));
  await Promise.all([
    settledTrail(keyA, ['ApiKeyCreated', 'UserCreated', 'MessageSent']),
    settledTrail(keyB, ['UserCreated', 'GroupCreated', 'GroupUpdated']),
  ]);
}, 120_000);

describe('GET /v3/apikeys/{apiKey}/audit', () => {
  it('lists exactly what each key did, newest first, with the acting user', async () => {
    const a = await trailWith(keyA, ['ApiKeyCreated', 'UserCreated', 'MessageSent']);
    const b = await trailWith(keyB, ['UserCreated', 'GroupCreated', 'GroupUpdated']);
    const auth = await trailWith(authOnlyKeyId, ['UserCreated']);

    // What A did and only that: B's group work is not in A's trail, and the other way round.
    expect(a.filter((e) => e.type === 'UserCreated').map((e) => e.streamId).sort()).toEqual([expect.stringContaining('alice'), expect.stringContaining('bob')]);
    expect(a.some((e) => e.type.startsWith('Group'))).toBe(false);
    expect(a.find((e) => e.type === 'MessageSent')).toMatchObject({ onBehalfOf: 'alice', scope: 'fullAccess', imported: false, requestId: expect.any(String) });
    const bUsers = b.filter((e) => e.type === 'UserCreated');
    expect(bUsers.map((e) => [e.streamId.split(':').at(-1), e.imported])).toEqual([['erin', true], ['carol', false]]);
    expect(b.some((e) => e.type === 'ApiKeyCreated')).toBe(false);
    // Whatever else a trail lists was derived from one of the key's own requests (a group's action
    // message, a receipt): it shares that request's id, and no request of the other key.
    const requestsOf = (entries: AuditEntry[], direct: string[]) => new Set(entries.filter((e) => direct.includes(e.type)).map((e) => e.requestId));
    const aRequests = requestsOf(a, ['ApiKeyCreated', 'UserCreated', 'MessageSent']);
    const bRequests = requestsOf(b, ['UserCreated', 'GroupCreated', 'GroupUpdated']);
    expect(a.filter((e) => !aRequests.has(e.requestId))).toEqual([]);
    expect(b.filter((e) => !bRequests.has(e.requestId))).toEqual([]);
    expect([...aRequests].some((id) => bRequests.has(id))).toBe(false);
    expect(auth.map((e) => e.type)).toEqual(['UserCreated']);
    expect(auth[0]).toMatchObject({ scope: 'authOnly', streamId: expect.stringContaining('dave') });

    const aIds = new Set(a.map((e) => e.eventId));
    expect(aIds.size).toBe(a.length);
    expect(b.some((e) => aIds.has(e.eventId))).toBe(false);
    for (const entries of [a, b]) {
      const times = entries.map((e) => e.occurredAtMs);
      expect(times).toEqual([...times].sort((x, y) => y - x));
      expect(entries.every((e) => e.occurredAt === Math.floor(e.occurredAtMs / 1000))).toBe(true);
    }
    // B's actions in the order B did them, read back newest first.
    // The import came last: an imported event is listed when it was imported, not at the time it records.
    const bOrder = b.filter((e) => ['UserCreated', 'GroupCreated', 'GroupUpdated'].includes(e.type)).map((e) => `${e.type}${e.imported ? ' (imported)' : ''}`);
    expect(bOrder).toEqual(['UserCreated (imported)', 'GroupUpdated', 'GroupCreated', 'UserCreated']);
  });

  it('names the key by its full value, its key id or its mask, and pages by number or cursor', async () => {
    const all = await trailWith(keyA, ['MessageSent']);
    expect(await trail(app.fullAccessKey)).toEqual(all);
    const masked = `${app.fullAccessKey.slice(0, 4)}...${app.fullAccessKey.slice(-4)}`;
    expect(await trail(masked)).toEqual(all);

    const walked: AuditEntry[] = [];
    let response = await audit(keyA, 'perPage=2');
    expect(response.body.meta.pagination).toMatchObject({ total: all.length, per_page: 2, current_page: 1 });
    for (;;) {
      walked.push(...dataOf<AuditEntry[]>(response));
      const next = response.body.meta.cursor.next as string | null;
      if (!next) break;
      response = await audit(keyA, `perPage=2&cursor=${next}`);
    }
    expect(walked).toEqual(all);
    expect(dataOf(await audit(keyA, 'perPage=2&page=2'))).toEqual(all.slice(2, 4));
    // A cursor is for one key and one set of filters.
    const first = await audit(keyA, 'perPage=1');
    expectError(await audit(keyB, `perPage=1&cursor=${first.body.meta.cursor.next as string}`), 400, 'ERR_BAD_REQUEST', 'cursor');
  });

  it('filters by event type and by time', async () => {
    const all = await trailWith(keyA, ['MessageSent']);
    const users = await trail(keyA, 'type=UserCreated');
    expect(users.map((e) => e.eventId)).toEqual(all.filter((e) => e.type === 'UserCreated').map((e) => e.eventId));
    const two = await audit(keyA, 'type=UserCreated,MessageSent&perPage=1');
    expect(two.body.meta.pagination.total).toBe(all.filter((e) => e.type === 'UserCreated' || e.type === 'MessageSent').length);

    const newest = all[0] as AuditEntry;
    const oldest = all.at(-1) as AuditEntry;
    expect(await trail(keyA, `since=${newest.occurredAt + 1}`)).toEqual([]);
    expect(await trail(keyA, `until=${oldest.occurredAt - 1}`)).toEqual([]);
    const window = await trail(keyA, `since=${oldest.occurredAt}&until=${newest.occurredAt}&perPage=1000`);
    expect(window).toEqual(all);
  });

  it('keeps another app out, and refuses bad input without changing anything', async () => {
    // Another app's key, asked by its full value or its id, is a missing key.
    expectError(await audit(keyA, '', other), 404, 'ERR_APIKEY_NOT_FOUND');
    expectError(await audit(app.fullAccessKey, '', other), 404, 'ERR_APIKEY_NOT_FOUND');
    const otherKey = dataOf<{ keyId: string }>(await other.call('GET', `/v3/apikeys/${other.fullAccessKey}`)).keyId;
    const theirs = dataOf<AuditEntry[]>(await audit(otherKey, '', other));
    const ours = new Set((await trail(keyA)).map((e) => e.eventId));
    expect(theirs.some((e) => ours.has(e.eventId))).toBe(false);

    expectError(await audit('0'.repeat(40)), 404, 'ERR_APIKEY_NOT_FOUND');
    expectError(await audit('not-a-key'), 404, 'ERR_APIKEY_NOT_FOUND');
    expectError(await audit(keyA, 'type=NoSuchEvent'), 400, 'ERR_BAD_REQUEST', 'type');
    expectError(await audit(keyA, 'since=yesterday'), 400, 'ERR_BAD_REQUEST', 'since');
    expectError(await audit(keyA, 'since=20&until=10'), 400, 'ERR_BAD_REQUEST', 'until');
    expectError(await audit(keyA, 'perPage=0'), 400, 'ERR_BAD_REQUEST', 'perPage');
    expectError(await audit(keyA, 'cursor=bm9wZQ'), 400, 'ERR_BAD_REQUEST', 'cursor');
    expectError(await audit(keyA, 'noSuchFilter=1'), 400, 'ERR_BAD_REQUEST', 'noSuchFilter');
    // The REST scope is needed: an auth-only key cannot read trails, its own included.
    expectError(await audit(authOnlyKeyId, '', app, app.authOnlyKey), 403, 'AUTH_ERR_NO_ACCESS');
    // Reads leave no trail of their own.
    expect((await trail(keyA)).length).toBe(ours.size);
  });

  it('keeps a revoked key’s trail readable, with its revocation in the revoking key’s trail', async () => {
    const before = await trailWith(keyB, ['GroupUpdated']);
    expectOk(await app.call('DELETE', `/v3/apikeys/${keyB}`));
    expect(await trail(keyB)).toEqual(before);
    const a = await trailWith(keyA, ['ApiKeyDeleted']);
    expect(a[0]?.type).toBe('ApiKeyDeleted');
  });

  it('is readable by the operator on the management API, for any app', async () => {
    const viaChat = await trailWith(keyA, ['MessageSent']);
    const asOperator = (path: string) => call('GET', path, { headers: managementHeaders() });
    expect(dataOf(await asOperator(`/apps/${app.appId}/apikeys/${keyA}/audit?perPage=1000`))).toEqual(viaChat);
    const paged = await asOperator(`/apps/${app.appId}/apikeys/${app.fullAccessKey}/audit?perPage=1&type=MessageSent`);
    expect(paged.body.meta.pagination.total).toBe(viaChat.filter((e) => e.type === 'MessageSent').length);
    expectError(await asOperator(`/apps/no-such-app/apikeys/${keyA}/audit`), 404, 'ERR_APP_NOT_FOUND');
    expectError(await asOperator(`/apps/${other.appId}/apikeys/${keyA}/audit`), 404, 'ERR_APIKEY_NOT_FOUND');
    expectError(await asOperator(`/apps/${app.appId}/apikeys/${keyA}/audit?until=x`), 400, 'ERR_BAD_REQUEST', 'until');
    expect((await call('GET', `/apps/${app.appId}/apikeys/${keyA}/audit`)).status).toBe(401);
  });
});
