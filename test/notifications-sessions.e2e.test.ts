import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { expectError } from './support/users.js';

/** Issues an auth token for `uid` and registers `fcmTokens` with it; answers the auth token. */
async function signIn(app: TestApp, uid: string, ...fcmTokens: string[]): Promise<string> {
  const issued = await app.call('POST', `/v3/users/${uid}/auth_tokens`, { body: {} });
  expect(issued.status).toBe(200);
  const authToken = issued.body.data.authToken as string;
  for (const fcmToken of fcmTokens) {
    expect((await app.call('POST', '/v3/notifications/push/v1/tokens', { body: { platform: 'fcm_web', fcmToken, authToken } })).status).toBe(200);
  }
  return authToken;
}

/** Every push token of the user `authToken` signs in, sorted. */
async function pushTokensSeenBy(app: TestApp, authToken: string): Promise<string[]> {
  const listed = await app.call('GET', `/v3/notifications/push/v1/tokens?authToken=${encodeURIComponent(authToken)}&all=true`);
  expect(listed.status).toBe(200);
  return (listed.body.data.pushTokens as { pushToken: string }[]).map((t) => t.pushToken).sort();
}

const settle = (app: TestApp, authToken: string, expected: string[]) =>
  eventually(
    () => pushTokensSeenBy(app, authToken),
    (tokens) => JSON.stringify(tokens) === JSON.stringify(expected),
    15_000,
  );

// ADR 0151: a push token belongs to the session it was registered with; when the users service revokes
// that auth token (deleted, flushed), its push tokens go, as a CometChat logout unregisters them.
describe('push tokens end with their session', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('push-sessions');
    await Promise.all(['gina', 'hal'].map((uid) => createUser(app, uid)));
  });

  it('a deleted auth token takes its push tokens and only those; a flush takes every session’s', async () => {
    const phone = await signIn(app, 'gina', 'gina-phone', 'gina-phone-voip');
    const laptop = await signIn(app, 'gina', 'gina-laptop');
    const tablet = await signIn(app, 'gina', 'gina-tablet');
    const other = await signIn(app, 'hal', 'hal-phone');
    expect(await pushTokensSeenBy(app, laptop)).toEqual(['gina-laptop', 'gina-phone', 'gina-phone-voip', 'gina-tablet']);

    expect((await app.call('DELETE', `/v3/users/gina/auth_tokens/${encodeURIComponent(phone)}`)).status).toBe(200);
    expect(await settle(app, laptop, ['gina-laptop', 'gina-tablet'])).toEqual(['gina-laptop', 'gina-tablet']);

    expect((await app.call('DELETE', '/v3/users/gina/auth_tokens')).status).toBe(200);
    // Every session is gone, so a new one reads what is left: nothing of the old sessions.
    const fresh = await signIn(app, 'gina');
    expect(await settle(app, fresh, [])).toEqual([]);
    expectError(await app.call('GET', `/v3/notifications/push/v1/tokens?authToken=${encodeURIComponent(tablet)}&all=true`), 404, 'ERR_AUTH_TOKEN_NOT_FOUND');
    // Another user's session, in the same app, keeps its token.
    expect(await pushTokensSeenBy(app, other)).toEqual(['hal-phone']);
  });
});
