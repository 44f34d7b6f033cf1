import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { groupHasConsumed, readBack } from './support/kafka.js';
import { sendMessage, text } from './support/messages.js';
import { expectError, expectOk } from './support/users.js';
import { WebhookReceiver } from './support/webhookReceiver.js';

/** Sends a text message as `from` and returns its id. */
async function send(app: TestApp, from: string, to: string, words: string): Promise<string> {
  return expectOk(await sendMessage(app, from, text(to, words))).data.id as string;
}

/** The log entries of one message, once `count` of them are there. */
async function logsOf(app: TestApp, messageId: string, count = 1): Promise<any[]> {
  const logs = await eventually(
    () => app.call('GET', `/v3/notifications/v1/logs?messageId=${messageId}`),
    (r) => r.status === 200 && r.body.data.length >= count,
    15_000,
  );
  expect(logs.status).toBe(200);
  return logs.body.data as any[];
}

/** Users are known to the notifications service a moment after they are created (it learns them from events). */
async function known(app: TestApp, uid: string): Promise<void> {
  const found = await eventually(
    () => app.call('GET', `/v3/notifications/v1/preferences?uid=${uid}`),
    (r) => r.status === 200,
  );
  expect(found.status).toBe(200);
}

/** A two-hour HHMM window around now on a UTC clock: Kolkata's clock (UTC+5:30) is outside it. */
function windowAroundUtcNow(): { from: number; to: number } {
  const hour = new Date().getUTCHours();
  return { from: hour * 100, to: ((hour + 1) % 24) * 100 + 59 };
}

const everyDay = (day: { from: number; to: number; dnd: boolean }) =>
  Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, day]));

describe('notifications deliver through the real stack', () => {
  let app: TestApp;
  let push: WebhookReceiver;

  beforeAll(async () => {
    app = await createApp('notifications');
    await Promise.all(['alice', 'bob', 'carol'].map((uid) => createUser(app, uid)));
    push = await new WebhookReceiver().start();
    const saved = await app.call('POST', '/v3/notifications/push/v1/providers/custom', {
      body: { isEnabled: true, webhookURL: push.url, useBasicAuth: true, basicAuthUsername: 'pusher', basicAuthPassword: 's3cret-pass' },
    });
    expect(saved.status).toBe(200);
    await Promise.all(['alice', 'bob', 'carol'].map((uid) => known(app, uid)));
  });

  afterAll(async () => {
    await push.stop();
  });

  it('a message notifies its receiver through the custom push provider, with Basic Auth and CometChat’s payload', async () => {
    const messageId = await send(app, 'alice', 'bob', 'hello bob');
    const arrived = await eventually(
      async () => push.received.filter((r) => r.json.data?.notificationDetails?.tag === messageId),
      (r) => r.length > 0,
      15_000,
    );
    expect(arrived).toHaveLength(1);
    const request = arrived[0]!;
    expect(request.headers['authorization']).toBe(`Basic ${Buffer.from('pusher:s3cret-pass').toString('base64')}`);
    expect(request.json).toMatchObject({
      trigger: 'push-notification-payload-generated',
      appId: app.appId,
      data: { to: { uid: 'bob' }, notificationDetails: { title: 'alice', body: 'hello bob', sender: 'alice', receiver: 'bob', receiverType: 'user', type: 'chat' } },
    });

    const [entry] = await logsOf(app, messageId);
    expect(entry).toMatchObject({ messageId, channel: 'push', provider: 'custom', sender: 'alice', receiver: 'bob', member: 'bob', notificationTriggered: true, success: true, attempt: 1 });
    expect(entry.payload.data.notificationDetails.body).toBe('hello bob');
  });

  it('a provider answering 503 is retried with backoff, and each call is in the log', async () => {
    push.script.push(503);
    const messageId = await send(app, 'carol', 'bob', 'second try');
    const entries = await logsOf(app, messageId, 2);
    const byAttempt = [...entries].sort((a, b) => a.attempt - b.attempt);
    expect(byAttempt.map((e) => [e.attempt, e.success, e.statusCode])).toEqual([
      [1, false, 503],
      [2, true, 200],
    ]);
    expect(byAttempt[0].outcome).toBe('retrying');
    expect(push.received.filter((r) => r.json.data?.notificationDetails?.tag === messageId)).toHaveLength(2);
  });

  it('a muted conversation does not notify, and notifies again once unmuted', async () => {
    const muted = await app.call('PUT', '/v3/notifications/v1/preferences/mute?uid=bob', { body: { conversations: [{ id: 'alice', type: 'oneOnOne' }] } });
    expect(muted.status).toBe(200);
    const list = await app.call('GET', '/v3/notifications/v1/preferences/mute?uid=bob');
    expect(list.body.data.mutedConversations).toEqual([{ id: 'alice', type: 'oneOnOne' }]);

    const quiet = await send(app, 'alice', 'bob', 'shh');
    const [skipped] = await logsOf(app, quiet);
    expect(skipped).toMatchObject({ notificationTriggered: false, reason: 'MUTE_PREFERENCE', member: 'bob' });
    // carol's conversation with bob is not muted.
    const other = await send(app, 'carol', 'bob', 'not muted');
    expect((await logsOf(app, other))[0]).toMatchObject({ notificationTriggered: true, success: true });
    expect(push.received.some((r) => r.json.data?.notificationDetails?.tag === quiet)).toBe(false);

    expect((await app.call('DELETE', '/v3/notifications/v1/preferences/mute?uid=bob', { body: { conversations: [{ id: 'alice', type: 'oneOnOne' }] } })).status).toBe(200);
    const loud = await send(app, 'alice', 'bob', 'unmuted');
    expect((await logsOf(app, loud))[0]).toMatchObject({ notificationTriggered: true, success: true });
  });

  it('a recipient change answered right before a send applies to it, every time (no read per run: ADR 0059)', async () => {
    // Each mute and unmute is answered, then a message sent at once: its decision must show the change.
    for (let round = 0; round < 3; round++) {
      expect((await app.call('PUT', '/v3/notifications/v1/preferences/mute?uid=carol', { body: { conversations: [{ id: 'bob', type: 'oneOnOne' }] } })).status).toBe(200);
      const quiet = await send(app, 'bob', 'carol', `quiet ${round}`);
      expect(await logsOf(app, quiet)).toEqual([expect.objectContaining({ notificationTriggered: false, reason: 'MUTE_PREFERENCE', member: 'carol' })]);
      expect((await app.call('DELETE', '/v3/notifications/v1/preferences/mute?uid=carol', { body: { conversations: [{ id: 'bob', type: 'oneOnOne' }] } })).status).toBe(200);
      const loud = await send(app, 'bob', 'carol', `loud ${round}`);
      expect(await logsOf(app, loud)).toEqual([expect.objectContaining({ notificationTriggered: true, member: 'carol' })]);
    }
  });

  it('a user created right before a message is notified by it (the users topic is watched too)', async () => {
    await createUser(app, 'newcomer');
    const messageId = await send(app, 'alice', 'newcomer', 'welcome');
    expect(await logsOf(app, messageId)).toEqual([expect.objectContaining({ notificationTriggered: true, member: 'newcomer' })]);
  });

  it('quiet hours in the user’s timezone hold notifications back', async () => {
    const timezone = 'Asia/Kolkata';
    const set = await app.call('PATCH', '/v3/notifications/v1/preferences/timezone?uid=bob', { body: { timezone } });
    expect(set.status).toBe(200);
    expect(set.body.data.timezone).toBe(timezone);
    const window = windowAroundUtcNow();
    const patched = await app.call('PATCH', '/v3/notifications/v1/preferences?uid=bob', {
      body: { mutePreferences: { schedule: everyDay({ ...window, dnd: false }) } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.preferences.mute.schedulePreferenceSetting.monday).toEqual({ ...window, dnd: false });

    const held = await send(app, 'alice', 'bob', 'at night');
    expect((await logsOf(app, held))[0]).toMatchObject({ notificationTriggered: false, reason: 'SCHEDULE_PREFERENCE' });

    // The same window is open for the same user on a UTC clock: the timezone decides.
    expect((await app.call('PATCH', '/v3/notifications/v1/preferences/timezone?uid=bob', { body: { timezone: 'UTC' } })).status).toBe(200);
    const open = await send(app, 'alice', 'bob', 'daytime in UTC');
    expect((await logsOf(app, open))[0]).toMatchObject({ notificationTriggered: true });

    const reset = await app.call('DELETE', '/v3/notifications/v1/preferences?uid=bob');
    expect(reset.status).toBe(200);
    expect(reset.body.data.mutePreferences.schedule.monday).toEqual({ from: 0, to: 2359, dnd: false });
    const after = await send(app, 'alice', 'bob', 'after reset');
    expect((await logsOf(app, after))[0]).toMatchObject({ notificationTriggered: true, success: true });
  });

  it('a user who turned one-on-one messages off gets none; the app can take that choice away', async () => {
    const off = await app.call('PATCH', '/v3/notifications/v1/preferences?uid=carol', { body: { oneOnOnePreferences: { oneOnOneMessages: 1 } } });
    expect(off.status).toBe(200);
    expect(off.body.data.preferences.oneOnOne.messagesSetting).toBe(1);
    const first = await send(app, 'alice', 'carol', 'are you there');
    expect((await logsOf(app, first))[0]).toMatchObject({ notificationTriggered: false, reason: 'MESSAGES_PREFERENCE' });

    const locked = await app.call('PATCH', '/v3/notifications/v1/settings', { body: { preferences: { oneOnOne: { messagesOverride: false } } } });
    expect(locked.status).toBe(200);
    const second = await send(app, 'alice', 'carol', 'now you are');
    expect((await logsOf(app, second))[0]).toMatchObject({ notificationTriggered: true });
    expect((await app.call('DELETE', '/v3/notifications/v1/settings')).status).toBe(200);
  });

  it('a group message notifies every member but the sender, and not those who muted the group', async () => {
    const group = await app.call('POST', '/v3/groups', { body: { guid: 'team', name: 'Team', type: 'public', owner: 'alice', members: { participants: ['bob', 'carol'] } } });
    expect(group.status).toBe(200);
    expect((await app.call('PUT', '/v3/notifications/v1/preferences/mute?uid=carol', { body: { conversations: [{ id: 'team', type: 'group' }] } })).status).toBe(200);
    // The service learns the membership from the group's events: send until it has.
    const entries = await eventually(
      async () => {
        const id = expectOk(await sendMessage(app, 'alice', text('team', 'hello team', 'group'))).data.id as string;
        await new Promise((r) => setTimeout(r, 300));
        return (await app.call('GET', `/v3/notifications/v1/logs?messageId=${id}`)).body.data as any[];
      },
      (found) => found.length >= 2,
      15_000,
    );
    const byMember = Object.fromEntries(entries.map((e) => [e.member, e]));
    expect(Object.keys(byMember).sort()).toEqual(['bob', 'carol']);
    expect(byMember['bob']).toMatchObject({ notificationTriggered: true, receiverType: 'group', receiver: 'team' });
    expect(byMember['carol']).toMatchObject({ notificationTriggered: false, reason: 'MUTE_PREFERENCE' });
  });

  it('who a group message notifies follows kicks and joins', async () => {
    await createUser(app, 'dave');
    await known(app, 'dave');
    const created = await app.call('POST', '/v3/groups', { body: { guid: 'crew', name: 'Crew', type: 'public', owner: 'alice', members: { participants: ['bob', 'carol'] } } });
    expect(created.status).toBe(200);
    /** The members one new message to the group was decided for, once its log settled. */
    const notified = async (): Promise<string[]> => {
      const id = expectOk(await sendMessage(app, 'alice', text('crew', 'hello crew', 'group'))).data.id as string;
      await new Promise((r) => setTimeout(r, 500));
      return ((await app.call('GET', `/v3/notifications/v1/logs?messageId=${id}`)).body.data as any[]).map((e) => e.member as string).sort();
    };
    expect(await eventually(notified, (members) => members.join() === 'bob,carol', 15_000)).toEqual(['bob', 'carol']);
    expect((await app.call('DELETE', '/v3/groups/crew/members/carol')).status).toBe(200);
    expect(await eventually(notified, (members) => members.join() === 'bob', 15_000)).toEqual(['bob']);
    // Settled: a later message is decided for bob alone too (a member list kept from before the kick would add carol).
    const after = expectOk(await sendMessage(app, 'alice', text('crew', 'still just bob', 'group'))).data.id as string;
    await logsOf(app, after);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(((await app.call('GET', `/v3/notifications/v1/logs?messageId=${after}`)).body.data as any[]).map((e) => e.member)).toEqual(['bob']);
    expect((await app.call('POST', '/v3/groups/crew/members', { body: { participants: ['dave'] } })).status).toBe(200);
    expect(await eventually(notified, (members) => members.join() === 'bob,dave', 15_000)).toEqual(['bob', 'dave']);
  });

  it('the log pages entry by entry both ways and filters as one list, whatever documents hold its entries', async () => {
    const group = await app.call('POST', '/v3/groups', { body: { guid: 'pages', name: 'Pages', type: 'public', owner: 'alice', members: { participants: ['bob', 'carol'] } } });
    expect(group.status).toBe(200);
    // A group message's entries are written together; one-on-one ones each on their own.
    const last = await eventually(
      async () => {
        const id = expectOk(await sendMessage(app, 'alice', text('pages', 'hello pages', 'group'))).data.id as string;
        await new Promise((r) => setTimeout(r, 300));
        return { id, entries: (await app.call('GET', `/v3/notifications/v1/logs?messageId=${id}`)).body.data as any[] };
      },
      (found) => found.entries.length >= 2,
      15_000,
    );
    const one = await send(app, 'bob', 'alice', 'one more');
    const two = await send(app, 'carol', 'alice', 'and one more');
    await logsOf(app, one);
    await logsOf(app, two);
    const all = expectOk(await app.call('GET', '/v3/notifications/v1/logs?limit=1000')).data as any[];
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(all.map((e) => e._id)).toContain(last.entries[0]._id);
    const ids = all.map((e) => e._id as string);
    expect(new Set(ids).size).toBe(ids.length);
    // Newest first: by start time, then by id.
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1], all[i]];
      expect(a.processingStartedAtMS > b.processingStartedAtMS || (a.processingStartedAtMS === b.processingStartedAtMS && a._id > b._id)).toBe(true);
    }
    const paged: string[] = [];
    let next = '';
    for (;;) {
      const page = expectOk(await app.call('GET', `/v3/notifications/v1/logs?limit=2${next}`));
      paged.push(...(page.data as any[]).map((e) => e._id as string));
      if (!page.meta.next) break;
      next = `&affix=append&logId=${page.meta.next.logId}`;
    }
    expect(paged).toEqual(ids);
    const above = expectOk(await app.call('GET', `/v3/notifications/v1/logs?limit=2&affix=prepend&logId=${ids[3]}`)).data as any[];
    expect(above.map((e) => e._id)).toEqual(ids.slice(1, 3));
    const bobNotified = expectOk(await app.call('GET', '/v3/notifications/v1/logs?limit=1000&member=bob&notificationTriggered=true')).data as any[];
    expect(bobNotified.map((e) => e._id)).toEqual(all.filter((e) => e.member === 'bob' && e.notificationTriggered === true).map((e) => e._id));
  });

  it('push tokens are registered with the user’s auth token and listed per session', async () => {
    const issued = await app.call('POST', '/v3/users/bob/auth_tokens', { body: {} });
    expect(issued.status).toBe(200);
    const authToken = issued.body.data.authToken as string;
    // Registered straight after the sign-in, as an app does: the service waits for the session to reach it.
    const registered = await app.call('POST', '/v3/notifications/push/v1/tokens', { body: { platform: 'fcm_android', fcmToken: 'device-token-1', authToken } });
    expect(registered.body).toEqual({ data: { success: true } });
    const listed = await app.call('GET', `/v3/notifications/push/v1/tokens?authToken=${encodeURIComponent(authToken)}`);
    expect(listed.body.data.pushTokens).toEqual([expect.objectContaining({ pushToken: 'device-token-1', platform: 'fcm_android', type: 'fcm' })]);

    // No FCM provider named by the token: the push is logged as not sent, the custom provider still is.
    const messageId = await send(app, 'alice', 'bob', 'with a device');
    const entries = await logsOf(app, messageId, 2);
    expect(entries.find((e) => e.provider === 'fcm')).toMatchObject({ notificationTriggered: false, reason: 'INVALID_PUSH_PROVIDER_ID', pushToken: 'device-token-1' });

    const removed = await app.call('DELETE', '/v3/notifications/push/v1/tokens/device-token-1', { body: { authToken } });
    expect(removed.status).toBe(200);
    expect(removed.body.data.pushTokens).toEqual([]);
    expectError(await app.call('DELETE', '/v3/notifications/push/v1/tokens/device-token-1', { body: { authToken } }), 404, 'ERR_PUSH_TOKEN_NOT_FOUND');
  });

  it('provider credentials are never shown in full', async () => {
    const shown = await app.call('GET', '/v3/notifications/push/v1/providers/custom');
    expect(shown.body.data.pushProviders).toEqual([
      expect.objectContaining({ isEnabled: true, webhookURL: push.url, useBasicAuth: true, basicAuthUsername: 'pusher', basicAuthPassword: '****pass' }),
    ]);
    expect(JSON.stringify(shown.body)).not.toContain('s3cret');

    const twilio = await app.call('POST', '/v3/notifications/sms/v1/providers/twilio', {
      body: { twilioAccountSID: 'AC123', twilioAuthToken: 'tw-token-abcd', twilioSenderPhoneNumber: '+14155550100', isEnabled: false },
    });
    expect(twilio.status).toBe(200);
    expect(twilio.body.data).toMatchObject({ twilioAccountSID: 'AC123', twilioAuthToken: '****abcd', twilioSenderPhoneNumber: '+14155550100' });
    expect(JSON.stringify((await app.call('GET', '/v3/notifications/sms/v1/providers/twilio')).body)).not.toContain('tw-token');
    expect((await app.call('DELETE', '/v3/notifications/sms/v1/providers/twilio')).status).toBe(200);
  });

  describe('bad input gets a 4xx and changes nothing', () => {
    async function unchanged(path: string, before: ApiResponse): Promise<void> {
      const after = await app.call('GET', path);
      expect(after.body).toEqual(before.body);
    }

    it('provider URLs that are not http(s), and fields of the wrong type', async () => {
      const path = '/v3/notifications/push/v1/providers/custom';
      const before = await app.call('GET', path);
      expectError(await app.call('PUT', path, { body: { webhookURL: 'ftp://example.com/push' } }), 400, 'ERR_PROVIDER_URL_NOT_ALLOWED', 'webhookURL');
      expectError(await app.call('PUT', path, { body: { webhookURL: 'javascript:alert(1)' } }), 400, 'ERR_PROVIDER_URL_NOT_ALLOWED');
      expectError(await app.call('PUT', path, { body: { isEnabled: 'yes' } }), 400, 'ERR_BAD_REQUEST', 'isEnabled');
      expectError(await app.call('POST', '/v3/notifications/email/v1/providers/custom', { body: { webhookURL: 'file:///etc/passwd' } }), 400, 'ERR_PROVIDER_URL_NOT_ALLOWED');
      expectError(await app.call('POST', path, { rawBody: '{"isEnabled": tru' }), 400, 'ERR_BAD_REQUEST');
      await unchanged(path, before);
      expectError(await app.call('GET', '/v3/notifications/email/v1/providers/custom'), 404, 'ERR_PROVIDER_NOT_CONFIGURED');

      const settings = await app.call('GET', '/v3/notifications/v1/settings');
      expectError(await app.call('PATCH', '/v3/notifications/v1/settings', { body: { preferences: { group: { messagesSetting: 7 } } } }), 400, 'ERR_BAD_REQUEST', 'messagesSetting');
      expectError(await app.call('PATCH', '/v3/notifications/v1/settings', { body: { sound: { chat: 5 } } }), 400, 'ERR_BAD_REQUEST', 'sound.chat');
      expectError(await app.call('PATCH', '/v3/notifications/v1/settings', { body: { unknownSection: {} } }), 400, 'ERR_BAD_REQUEST', 'unknownSection');
      await unchanged('/v3/notifications/v1/settings', settings);

      const apns = '/v3/notifications/push/v1/providers/apns';
      expectError(await app.call('POST', apns, { body: { keyId: 'K', teamId: 'T', bundleId: 'com.example', p8Key: 'not a key' } }), 400, 'ERR_BAD_REQUEST', 'p8Key');
      expect((await app.call('GET', apns)).body.data.pushProviders).toEqual([]);
    });

    it('unknown ids', async () => {
      expectError(await app.call('GET', '/v3/notifications/v1/preferences?uid=nobody'), 404, 'ERR_UID_NOT_FOUND');
      expectError(await app.call('PUT', '/v3/notifications/v1/preferences/mute?uid=nobody', { body: { conversations: [{ id: 'x', type: 'group' }] } }), 404, 'ERR_UID_NOT_FOUND');
      expectError(await app.call('PATCH', '/v3/notifications/v1/preferences/timezone?uid=nobody', { body: { timezone: 'UTC' } }), 404, 'ERR_UID_NOT_FOUND');
      expectError(await app.call('DELETE', '/v3/notifications/push/v1/providers/fcm/missing'), 404, 'ERR_PUSH_PROVIDER_NOT_FOUND');
      expectError(await app.call('PUT', '/v3/notifications/push/v1/providers/apns/default/missing'), 404, 'ERR_PUSH_PROVIDER_NOT_FOUND');
      expectError(await app.call('DELETE', '/v3/notifications/email/v1/providers/sendgrid'), 404, 'ERR_PROVIDER_NOT_CONFIGURED');
      expectError(
        await app.call('POST', '/v3/notifications/push/v1/tokens', { body: { platform: 'fcm_android', fcmToken: 't', authToken: 'bob_0000000000not-a-session' } }),
        404,
        'ERR_AUTH_TOKEN_NOT_FOUND',
      );
      expectError(await app.call('GET', '/v3/notifications/v1/contact-details', { onBehalfOf: 'nobody' }), 404, 'ERR_UID_NOT_FOUND');
    });

    it('values out of range', async () => {
      const timezone = await app.call('GET', '/v3/notifications/v1/preferences/timezone?uid=carol');
      expectError(await app.call('PATCH', '/v3/notifications/v1/preferences/timezone?uid=carol', { body: { timezone: 'Mars/Olympus_Mons' } }), 400, 'ERR_INVALID_TIMEZONE');
      await unchanged('/v3/notifications/v1/preferences/timezone?uid=carol', timezone);
      expectError(await app.call('PUT', '/v3/notifications/v1/preferences/mute?uid=carol', { body: { conversations: [{ id: 'alice', type: 'channel' }] } }), 400, 'ERR_BAD_REQUEST', 'type');
      expectError(await app.call('PUT', '/v3/notifications/v1/preferences/mute?uid=carol', { body: { conversations: [] } }), 400, 'ERR_BAD_REQUEST', 'conversations');
      expectError(await app.call('PATCH', '/v3/notifications/v1/preferences?uid=carol', { body: { mutePreferences: { dnd: 3 } } }), 400, 'ERR_BAD_REQUEST', 'dnd');
      expectError(await app.call('PATCH', '/v3/notifications/v1/contact-details', { onBehalfOf: 'carol', body: { phno: '12345' } }), 400, 'ERR_BAD_REQUEST', 'phno');
      expectError(await app.call('PATCH', '/v3/notifications/v1/contact-details', { onBehalfOf: 'carol', body: { email: 'not-an-email' } }), 400, 'ERR_BAD_REQUEST', 'email');
      expect((await app.call('GET', '/v3/notifications/v1/contact-details', { onBehalfOf: 'carol' })).body.data).toEqual({ email: '', phno: '' });
      expectError(await app.call('GET', '/v3/notifications/v1/logs?channel=pigeon'), 400, 'ERR_BAD_REQUEST', 'channel');
    });
  });
});

describe('an app without a notification provider', () => {
  it('is told nothing, and the provider it saves applies to the very next message', async () => {
    const quiet = await createApp('notifications, no provider');
    await Promise.all(['alice', 'bob'].map((uid) => createUser(quiet, uid)));
    await Promise.all(['alice', 'bob'].map((uid) => known(quiet, uid)));
    const before = await send(quiet, 'alice', 'bob', 'nobody is told');
    // Decided (left undecoded) before the provider exists: on two replicas a lagging consumer would
    // otherwise decide it after the save, with the provider, which is right but not this test's case.
    const sent = await readBack('chat.messages.events', (v) => v['type'] === 'MessageSent' && v['appId'] === quiet.appId);
    await groupHasConsumed(`notifications.chat_notifications_${inject('databaseSuffix')}`, 'chat.messages.events', sent.partition, sent.offset);
    const receiver = await new WebhookReceiver().start();
    try {
      const saved = await quiet.call('POST', '/v3/notifications/push/v1/providers/custom', { body: { isEnabled: true, webhookURL: receiver.url, useBasicAuth: false } });
      expect(saved.status).toBe(200);
      // Sent right after the answer: whichever replica decides it must know of the provider by then.
      const after = await send(quiet, 'alice', 'bob', 'now you are');
      expect((await logsOf(quiet, after))[0]).toMatchObject({ notificationTriggered: true, member: 'bob' });
      expect((await quiet.call('GET', `/v3/notifications/v1/logs?messageId=${before}`)).body.data).toEqual([]);
    } finally {
      await receiver.stop();
    }
  });
});
