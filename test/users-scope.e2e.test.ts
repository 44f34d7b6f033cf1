import { beforeAll, describe, expect, it } from 'vitest';
import { call, createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { commitCount } from './support/mongo.js';
import { expectError, expectOk, makeUser } from './support/users.js';

/** Every operation of the users service, with a body that would succeed under a fullAccess key. */
const operations: [string, string, unknown?][] = [
  ['GET', '/v3/users'],
  ['PUT', '/v3/users', { uidsToActivate: ['subject'] }],
  ['DELETE', '/v3/users', { uidsToDeactivate: ['subject'] }],
  ['GET', '/v3/users/subject'],
  ['PUT', '/v3/users/subject', { name: 'Changed' }],
  ['DELETE', '/v3/users/subject'],
  ['GET', '/v3/users/subject/auth_tokens'],
  ['DELETE', '/v3/users/subject/auth_tokens'],
  ['GET', '/v3/users/subject/auth_tokens/TOKEN'],
  ['PUT', '/v3/users/subject/auth_tokens/TOKEN', { platform: 'web' }],
  ['DELETE', '/v3/users/subject/auth_tokens/TOKEN'],
  ['GET', '/v3/users/subject/friends'],
  ['POST', '/v3/users/subject/friends', { accepted: ['peer'] }],
  ['DELETE', '/v3/users/subject/friends', { friends: ['peer'] }],
  ['GET', '/v3/users/subject/blockedusers'],
  ['POST', '/v3/users/subject/blockedusers', { blockedUids: ['peer'] }],
  ['DELETE', '/v3/users/subject/blockedusers', { blockedUids: ['peer'] }],
  ['GET', '/v3/roles'],
  ['POST', '/v3/roles', { role: 'scoped', name: 'Scoped' }],
  ['GET', '/v3/roles/default'],
  ['PUT', '/v3/roles/default', { name: 'Changed' }],
  ['DELETE', '/v3/roles/spare'],
  ['GET', '/v3/roles/spare/permissions'],
  ['PUT', '/v3/roles/spare/permissions', { permissions: { sendMessage: 'deny' } }],
  ['DELETE', '/v3/roles/spare/permissions/sendMessage'],
  ['GET', '/v3/roles/spare/restrictedfeatures'],
  ['POST', '/v3/roles/spare/restrictedfeatures', { featuresToRestrict: ['u.listUsers'] }],
  ['DELETE', '/v3/roles/spare/restrictedfeatures', { allowAll: true }],
];

describe('users service: key scopes and tenants', () => {
  let app: TestApp;
  let other: TestApp;
  let token: string;
  beforeAll(async () => {
    [app, other] = await Promise.all([createApp('scope'), createApp('scope other')]);
    await makeUser(app, 'subject');
    await makeUser(app, 'peer');
    expectOk(await app.call('POST', '/v3/roles', { body: { role: 'spare', name: 'Spare' } }));
    token = expectOk(await app.call('POST', '/v3/users/subject/auth_tokens', { body: {} })).data.authToken;
  });

  const pathOf = (path: string) => path.replace('TOKEN', token);

  it.each(operations)('an authOnly key may not %s %s', async (method, path, body) => {
    const before = [await commitCount('users', `user:${app.appId}:subject`), await commitCount('users', `roles:${app.appId}`)];
    expectError(await app.call(method, pathOf(path), { apiKey: app.authOnlyKey, ...(body ? { body } : {}) }), 403, 'AUTH_ERR_NO_ACCESS');
    expect([await commitCount('users', `user:${app.appId}:subject`), await commitCount('users', `roles:${app.appId}`)]).toEqual(before);
  });

  it.each(operations)("another app's key may not %s %s", async (method, path, body) => {
    const response = await call(method, pathOf(path), { appId: app.appId, apiKey: other.fullAccessKey, ...(body ? { body } : {}) });
    expectError(response, 401, 'AUTH_ERR_APIKEY_NOT_FOUND');
  });

  it.each([
    ['POST', '/v3/users', { uid: 'intruder', name: 'I' }],
    ['POST', '/v3/users/subject/auth_tokens', {}],
  ])("another app's keys (either scope) may not %s %s", async (method, path, body) => {
    for (const apiKey of [other.fullAccessKey, other.authOnlyKey]) {
      expectError(await call(method, path, { appId: app.appId, apiKey, body }), 401, 'AUTH_ERR_APIKEY_NOT_FOUND');
    }
    expectError(await app.call('GET', '/v3/users/intruder'), 404, 'ERR_UID_NOT_FOUND');
  });

  it('an authOnly key may create users and auth tokens, and nothing else', async () => {
    const user = await app.call('POST', '/v3/users', { apiKey: app.authOnlyKey, body: { uid: 'self-signup', name: 'S' } });
    expect(expectOk(user).data.uid).toBe('self-signup');
    const issued = await app.call('POST', '/v3/users/self-signup/auth_tokens', { apiKey: app.authOnlyKey, body: {} });
    expect(expectOk(issued).data.authToken).toMatch(/^self-signup_/);
  });

  it("another app's own key sees none of this app's users or roles", async () => {
    expectError(await other.call('GET', '/v3/users/subject'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await other.call('GET', '/v3/roles/spare'), 404, 'ERR_ROLE_NOT_FOUND');
    expect(expectOk(await other.call('GET', '/v3/users')).data).toEqual([]);
    expectError(await other.call('POST', '/v3/users/subject/friends', { body: { accepted: ['peer'] } }), 404, 'ERR_UID_NOT_FOUND');
  });

  it('the fullAccess key still does all of it (the matrix above is not vacuous)', async () => {
    // In an order where each call still finds what it needs: deactivate before reactivate, the
    // token before the flush, the role and the user deleted last.
    const last = ['DELETE /v3/users/subject/auth_tokens', 'DELETE /v3/roles/spare', 'DELETE /v3/users/subject'];
    const rank = ([method, path]: [string, string, unknown?]) => {
      const key = `${method} ${path}`;
      if (key === 'DELETE /v3/users') return -2;
      if (key === 'PUT /v3/users') return -1;
      return last.indexOf(key) + 1;
    };
    const ordered = [...operations].sort((a, b) => rank(a) - rank(b));
    for (const [method, path, body] of ordered) {
      const response = await app.call(method, pathOf(path), body ? { body } : {});
      expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(200);
    }
  });
});
