import { createHash } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { internalPaths } from '@chat/contracts';
import { call, createApp, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { expectError, expectOk, makeUser, userEvent } from './support/users.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Straight to the users service: the gateway does not route `/internal`. */
async function verify(appId: string, authToken: string) {
  const response = await fetch(`${inject('serviceUrls').users}${internalPaths.authTokenByHash(appId, sha256(authToken))}`);
  return { status: response.status, body: (await response.json()) as any };
}

describe('auth tokens', () => {
  let app: TestApp;
  let other: TestApp;
  beforeAll(async () => {
    [app, other] = await Promise.all([createApp('tokens'), createApp('tokens other')]);
    await makeUser(app, 'holder');
    await makeUser(app, 'second');
  });

  it('creates tokens (also with platform and device), shown once; lists them masked with a tokenId', async () => {
    const first = expectOk(await app.call('POST', '/v3/users/holder/auth_tokens', { body: { platform: 'ios', deviceId: 'dev-1' } })).data;
    expect(first).toMatchObject({ uid: 'holder', platform: 'ios', deviceId: 'dev-1', tokenId: sha256(first.authToken) });
    expect(first.authToken).toMatch(/^holder_\d+[0-9a-f]{40}$/);
    const second = expectOk(await app.call('POST', '/v3/users/holder/auth_tokens', { body: { force: true } })).data;
    expect(second.authToken).not.toBe(first.authToken);

    const listed = expectOk(await app.call('GET', '/v3/users/holder/auth_tokens'));
    expect(listed.meta.pagination).toEqual({ total: 2, count: 2, per_page: 100, current_page: 1, total_pages: 1 });
    const shown = listed.data.map((t: { authToken: string }) => t.authToken);
    expect(shown).not.toContain(first.authToken);
    const firstShown = listed.data.find((t: { tokenId: string }) => t.tokenId === first.tokenId);
    expect(firstShown.authToken).toMatch(new RegExp(`^holder_${first.createdAt}\\*{36}${first.authToken.slice(-4)}$`));
    expect(listed.data.map((t: { tokenId: string }) => t.tokenId).sort()).toEqual([first.tokenId, second.tokenId].sort());
    const paged = expectOk(await app.call('GET', '/v3/users/holder/auth_tokens?perPage=1&page=2'));
    expect(paged.data.map((t: { tokenId: string }) => t.tokenId)).toEqual([listed.data[1].tokenId]);

    const event = await userEvent(app.appId, 'AuthTokenCreated', (data) => data.tokenId === first.tokenId);
    expect(JSON.stringify(event)).not.toContain(first.authToken);
  });

  it('never stores a usable token: the database holds only fingerprints', async () => {
    const { authToken } = expectOk(await app.call('POST', '/v3/users/second/auth_tokens', { body: {} })).data;
    const client = new MongoClient(inject('mongoUrl'));
    await client.connect();
    try {
      const db = client.db(`chat_users_${inject('databaseSuffix')}`);
      for (const name of ['commits', 'authtokens']) {
        const docs = await db.collection(name).find({}).toArray();
        expect(JSON.stringify(docs)).not.toContain(authToken);
      }
      expect(JSON.stringify(await db.collection('authtokens').find({}).toArray())).toContain(sha256(authToken));
    } finally {
      await client.close();
    }
  });

  it('gets and updates one token by the token itself or by its tokenId', async () => {
    const { authToken, tokenId } = expectOk(await app.call('POST', '/v3/users/holder/auth_tokens', { body: {} })).data;
    expect(expectOk(await app.call('GET', `/v3/users/holder/auth_tokens/${authToken}`)).data).toMatchObject({ uid: 'holder', authToken, tokenId });
    const byId = expectOk(await app.call('GET', `/v3/users/holder/auth_tokens/${tokenId}`)).data;
    expect(byId.tokenId).toBe(tokenId);
    expect(byId.authToken).not.toBe(authToken);
    const updated = expectOk(
      await app.call('PUT', `/v3/users/holder/auth_tokens/${authToken}`, {
        body: { platform: 'android', userAgent: 'UA/1', appInfo: { version: '1.2', 'a.b': 1 } },
      }),
    ).data;
    // CometChat's schema types appInfo as a string: the object sent, as JSON text, in every token answer.
    expect(updated).toMatchObject({ uid: 'holder', authToken, platform: 'android', userAgent: 'UA/1' });
    expect(JSON.parse(updated.appInfo)).toEqual({ version: '1.2', 'a.b': 1 });
    await userEvent(app.appId, 'AuthTokenUpdated', (data) => data.tokenId === tokenId);
    const got = await eventually(
      () => app.call('GET', `/v3/users/holder/auth_tokens/${tokenId}`),
      (r) => r.status === 200 && r.body.data.appInfo !== undefined,
    );
    expect(got.body.data.appInfo).toBe(updated.appInfo);
    const listed = await eventually(
      () => app.call('GET', '/v3/users/holder/auth_tokens'),
      (r) => r.status === 200 && r.body.data.some((t: { tokenId: string; appInfo?: unknown }) => t.tokenId === tokenId && t.appInfo !== undefined),
    );
    const entry = listed.body.data.find((t: { tokenId: string }) => t.tokenId === tokenId);
    expect(typeof entry.appInfo).toBe('string');
    expect(JSON.parse(entry.appInfo)).toEqual({ version: '1.2', 'a.b': 1 });
  });

  it.each([
    ['an empty body', {}, 400, 'ERR_BAD_REQUEST'],
    ['a platform of the wrong type', { platform: 5 }, 400, 'ERR_BAD_REQUEST'],
    ['appInfo that is not an object', { appInfo: 'x' }, 400, 'ERR_BAD_REQUEST'],
  ])('refuses a token update with %s', async (_label, body, status, code) => {
    const { authToken } = expectOk(await app.call('POST', '/v3/users/holder/auth_tokens', { body: {} })).data;
    expectError(await app.call('PUT', `/v3/users/holder/auth_tokens/${authToken}`, { body }), status, code);
  });

  it('answers unknown tokens, tokens of another user and unknown users with 404', async () => {
    const { authToken } = expectOk(await app.call('POST', '/v3/users/holder/auth_tokens', { body: {} })).data;
    expectError(await app.call('GET', '/v3/users/holder/auth_tokens/holder_123nonsense'), 404, 'ERR_AUTH_TOKEN_NOT_FOUND');
    expectError(await app.call('GET', `/v3/users/second/auth_tokens/${authToken}`), 404, 'ERR_AUTH_TOKEN_NOT_FOUND');
    expectError(await app.call('DELETE', `/v3/users/second/auth_tokens/${authToken}`), 404, 'ERR_AUTH_TOKEN_NOT_FOUND');
    expectError(await app.call('PUT', `/v3/users/second/auth_tokens/${authToken}`, { body: { platform: 'x' } }), 404, 'ERR_AUTH_TOKEN_NOT_FOUND');
    expectError(await app.call('GET', '/v3/users/ghost/auth_tokens'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/users/ghost/auth_tokens', { body: {} }), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/users/holder/auth_tokens', { body: { force: 'yes' } }), 400, 'ERR_BAD_REQUEST', 'force');
    // Another app's key never sees this app's tokens, and this app's uid means nothing there.
    expectError(await other.call('GET', `/v3/users/holder/auth_tokens/${authToken}`), 404, 'ERR_UID_NOT_FOUND');
    expectError(await call('GET', `/v3/users/holder/auth_tokens/${authToken}`, { appId: app.appId, apiKey: other.fullAccessKey }), 401, 'AUTH_ERR_APIKEY_NOT_FOUND');
  });

  it('verifies live tokens; deleting one, flushing all, deactivating or deleting the user stops them at once', async () => {
    await makeUser(app, 'session');
    const issue = async () => expectOk(await app.call('POST', '/v3/users/session/auth_tokens', { body: {} })).data.authToken as string;
    const [a, b, c] = [await issue(), await issue(), await issue()];
    expect(await verify(app.appId, a)).toMatchObject({ status: 200, body: { uid: 'session', tokenId: sha256(a) } });
    expect((await verify(other.appId, a)).status).toBe(404);

    const deleted = expectOk(await app.call('DELETE', `/v3/users/session/auth_tokens/${a}`));
    expect(deleted.data.success).toBe(true);
    expect((await verify(app.appId, a)).body.error.code).toBe('ERR_AUTH_TOKEN_NOT_FOUND');
    expectError(await app.call('GET', `/v3/users/session/auth_tokens/${a}`), 404, 'ERR_AUTH_TOKEN_NOT_FOUND');
    expect((await verify(app.appId, b)).status).toBe(200);

    expectOk(await app.call('DELETE', '/v3/users', { body: { uidsToDeactivate: ['session'] } }));
    expect((await verify(app.appId, b)).status).toBe(404);
    expectOk(await app.call('PUT', '/v3/users', { body: { uidsToActivate: ['session'] } }));
    expect((await verify(app.appId, b)).status).toBe(200);

    const flushed = expectOk(await app.call('DELETE', '/v3/users/session/auth_tokens'));
    expect(flushed.data).toEqual({ success: true, message: expect.stringContaining('session') });
    expect((await verify(app.appId, b)).status).toBe(404);
    expect((await verify(app.appId, c)).status).toBe(404);
    expect(expectOk(await app.call('GET', '/v3/users/session/auth_tokens')).data).toEqual([]);
    const revoked = await userEvent(app.appId, 'AuthTokensRevoked', (data) => data.uid === 'session' && data.reason === 'flushed');
    expect(revoked.data.tokenIds).toHaveLength(2);

    const d = await issue();
    expectOk(await app.call('DELETE', '/v3/users/session', { body: { permanent: true } }));
    expect((await verify(app.appId, d)).status).toBe(404);
    await makeUser(app, 'session');
    expect((await verify(app.appId, d)).status).toBe(404);
  });
});
