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
describe('push tokens and the sessions they are registered with', () => {
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

  it('a push token registered the moment its auth token is issued is accepted, every time; a revoked one is refused at once', async () => {
    // Twenty users sign in at once, each registering the moment its token is issued (ADR 0144); one user's
    // twenty sessions at once are the next test's.
    const uids = Array.from({ length: 20 }, (_, i) => `erin${i}`);
    await Promise.all(uids.map((uid) => createUser(app, uid)));
    const sessions = await Promise.all(
      uids.map(async (uid) => {
        const issued = await app.call('POST', `/v3/users/${uid}/auth_tokens`, { body: {} });
        expect(issued.status).toBe(200);
        const session = { uid, authToken: issued.body.data.authToken as string, fcmToken: `fresh-session-${uid}` };
        const registered = await app.call('POST', '/v3/notifications/push/v1/tokens', { body: { platform: 'fcm_web', fcmToken: session.fcmToken, authToken: session.authToken } });
        return { ...session, status: registered.status };
      }),
    );
    expect(sessions.map((s) => s.status)).toEqual(uids.map(() => 200));
    for (const session of sessions) expect(await pushTokensSeenBy(app, session.authToken)).toEqual([session.fcmToken]);
    // The users service is asked: a token revoked a moment ago is refused on the next request; one nobody
    // issued is refused too. Neither registers anything.
    const revoked = sessions[0]!;
    expect((await app.call('DELETE', `/v3/users/${revoked.uid}/auth_tokens/${encodeURIComponent(revoked.authToken)}`)).status).toBe(200);
    for (const [fcmToken, authToken] of [['after-logout', revoked.authToken], ['never', 'not-a-token']]) {
      expectError(await app.call('POST', '/v3/notifications/push/v1/tokens', { body: { platform: 'fcm_web', fcmToken, authToken } }), 404, 'ERR_AUTH_TOKEN_NOT_FOUND');
    }
    // The revoked session's push token goes with it (ADR 0151).
    const again = await signIn(app, revoked.uid);
    expect(await settle(app, again, [])).toEqual([]);
  });

  it('one user signing in twenty times at once keeps every session’s push token, on any number of replicas', async () => {
    // Twenty commands on one recipient stream: through two replicas, each applies its own commit to the read
    // model, and a later commit applied first used to hide the earlier one for good (ADR 0157). Every answer
    // comes after its own apply, so the listing right after the last answer shows all twenty.
    await createUser(app, 'ivy');
    const devices = Array.from({ length: 20 }, (_, i) => `ivy-device-${String(i).padStart(2, '0')}`);
    const sessions = await Promise.all(devices.map((device) => signIn(app, 'ivy', device)));
    expect(await pushTokensSeenBy(app, sessions[0]!)).toEqual(devices);
  });
});
