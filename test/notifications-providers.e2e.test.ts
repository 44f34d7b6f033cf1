import { generateKeyPairSync, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { providerRequests, scriptProvider } from './support/fakeProviders.js';
import type { ProviderRequest } from './support/fakeProviders.js';
import { sendMessage, text } from './support/messages.js';

/** Checks a JWT's signature with the public key (written from RFC 7515/7518, not with the service's code). */
function verifiedJwt(token: string, key: KeyObject, alg: 'RS256' | 'ES256'): { header: any; claims: any } {
  const [h, c, s] = token.split('.');
  const ok = verify('sha256', Buffer.from(`${h}.${c}`), alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key, Buffer.from(s ?? '', 'base64url'));
  expect(ok, 'JWT signature').toBe(true);
  return { header: JSON.parse(Buffer.from(h!, 'base64url').toString()), claims: JSON.parse(Buffer.from(c!, 'base64url').toString()) };
}

async function requestsFor(provider: ProviderRequest['provider'], match: (r: ProviderRequest) => boolean): Promise<ProviderRequest[]> {
  return eventually(
    async () => (await providerRequests(inject('fakeProvidersUrl'))).filter((r) => r.provider === provider && match(r)),
    (found) => found.length > 0,
    15_000,
  );
}

async function send(app: TestApp, words: string): Promise<string> {
  const sent = await sendMessage(app, 'erin', text('dave', words));
  expect(sent.status).toBe(200);
  return sent.body.data.id as string;
}

describe('the built-in provider adapters speak the providers’ APIs (against local fakes)', () => {
  let app: TestApp;
  let authToken: string;
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

  beforeAll(async () => {
    app = await createApp('notification providers');
    await Promise.all(['dave', 'erin'].map((uid) => createUser(app, uid)));
    const issued = await app.call('POST', '/v3/users/dave/auth_tokens', { body: {} });
    authToken = issued.body.data.authToken as string;
    // The notifications service learns users and sessions from the users service's events.
    await eventually(
      () => app.call('GET', `/v3/notifications/push/v1/tokens?authToken=${encodeURIComponent(authToken)}`),
      (r) => r.status === 200,
    );
  });

  it('FCM HTTP v1: a service-account JWT for an access token, then messages:send with it; an UNREGISTERED token is removed', async () => {
    const saved = await app.call('POST', '/v3/notifications/push/v1/providers/fcm', {
      body: {
        providerId: 'fcm-main',
        serviceAccountFilename: 'demo.json',
        serviceAccountCreds: {
          project_id: 'demo-project',
          client_email: 'push@demo-project.iam.gserviceaccount.com',
          private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
          private_key_id: 'key-1',
        },
        notificationInPayload: { android: { chat: true } },
      },
    });
    expect(saved.status).toBe(200);
    const listed = await app.call('GET', '/v3/notifications/push/v1/providers/fcm');
    expect(listed.body.data.pushProviders).toEqual([expect.objectContaining({ providerId: 'fcm-main', projectId: 'demo-project', isDefault: true })]);
    expect(JSON.stringify(listed.body)).not.toContain('PRIVATE KEY');

    const registered = await app.call('POST', '/v3/notifications/push/v1/tokens', { body: { platform: 'fcm_android', fcmToken: 'fcm:token-ok', authToken } });
    expect(registered.status).toBe(200);
    await send(app, 'hello over fcm');

    const [call] = await requestsFor('fcm', (r) => r.body.includes('hello over fcm'));
    expect(call!.path).toBe('/fcm/v1/projects/demo-project/messages:send');
    const [grant] = await requestsFor('fcm-token', () => true);
    const form = new URLSearchParams(grant!.body);
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const { header, claims } = verifiedJwt(form.get('assertion')!, rsa.publicKey, 'RS256');
    expect(header).toMatchObject({ alg: 'RS256', kid: 'key-1' });
    expect(claims).toMatchObject({ iss: 'push@demo-project.iam.gserviceaccount.com', scope: 'https://www.googleapis.com/auth/firebase.messaging' });
    expect(call!.headers['authorization']).toMatch(/^Bearer ya29\./);
    const body = JSON.parse(call!.body);
    expect(body.message).toMatchObject({ token: 'fcm:token-ok', notification: { title: 'erin', body: 'hello over fcm' }, data: { body: 'hello over fcm', sender: 'erin' } });
    expect(Object.values(body.message.data).every((v) => typeof v === 'string')).toBe(true);

    // The provider says the token reaches no device: it is removed and logged as such.
    await scriptProvider(inject('fakeProvidersUrl'), 'fcm', [{ status: 404, body: JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', details: [{ errorCode: 'UNREGISTERED' }] } }) }]);
    const stale = await send(app, 'to a dead token');
    const logs = await eventually(
      () => app.call('GET', `/v3/notifications/v1/logs?messageId=${stale}&provider=fcm`),
      (r) => r.body.data?.length > 0,
      15_000,
    );
    expect(logs.body.data[0]).toMatchObject({ outcome: 'invalidToken', success: false, statusCode: 404, pushToken: 'fcm:token-ok' });
    const tokens = await eventually(
      () => app.call('GET', `/v3/notifications/push/v1/tokens?authToken=${encodeURIComponent(authToken)}&all=true`),
      (r) => r.body.data.pushTokens.length === 0,
    );
    expect(tokens.body.data.pushTokens).toEqual([]);
    expect((await app.call('DELETE', '/v3/notifications/push/v1/providers/fcm/fcm-main')).status).toBe(200);
  });

  it('APNs over HTTP/2: an ES256 provider token, the bundle id as topic, the alert in aps', async () => {
    const saved = await app.call('POST', '/v3/notifications/push/v1/providers/apns', {
      body: {
        providerId: 'apns-main',
        keyId: 'ABC123DEFG',
        teamId: 'TEAM123456',
        bundleId: 'com.example.chat',
        p8Key: ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        productionMode: false,
        includeMutableContent: true,
      },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.data.pushProviders[0]).toMatchObject({ providerId: 'apns-main', bundleId: 'com.example.chat', isDefault: true });
    expect(saved.body.data.pushProviders[0].p8Key).toMatch(/^\*\*\*\*/);
    const registered = await app.call('POST', '/v3/notifications/push/v1/tokens', { body: { platform: 'apns_ios_device', deviceToken: 'a1b2c3d4', authToken } });
    expect(registered.status).toBe(200);
    await send(app, 'hello over apns');

    const [call] = await requestsFor('apns', (r) => r.body.includes('hello over apns'));
    expect(call!.method).toBe('POST');
    expect(call!.path).toBe('/3/device/a1b2c3d4');
    expect(call!.headers['apns-topic']).toBe('com.example.chat');
    expect(call!.headers['apns-push-type']).toBe('alert');
    const bearer = String(call!.headers['authorization']).replace(/^bearer /, '');
    const { header, claims } = verifiedJwt(bearer, ec.publicKey, 'ES256');
    expect(header).toEqual({ alg: 'ES256', kid: 'ABC123DEFG' });
    expect(claims.iss).toBe('TEAM123456');
    expect(JSON.parse(call!.body).aps).toMatchObject({ alert: { title: 'erin', body: 'hello over apns' }, 'mutable-content': 1 });
    expect((await app.call('DELETE', '/v3/notifications/push/v1/providers/apns/apns-main')).status).toBe(200);
  });

  it('Twilio: a form-encoded message with Basic Auth, to the phone number in the contact details', async () => {
    const saved = await app.call('POST', '/v3/notifications/sms/v1/providers/twilio', {
      body: { twilioAccountSID: 'AC0123456789', twilioAuthToken: 'twilio-secret-token', twilioSenderPhoneNumber: '+14155550100' },
    });
    expect(saved.status).toBe(200);
    // Without a phone number the SMS is logged as not sent.
    const first = await send(app, 'no number yet');
    const skipped = await eventually(
      () => app.call('GET', `/v3/notifications/v1/logs?messageId=${first}&channel=sms`),
      (r) => r.body.data?.length > 0,
    );
    expect(skipped.body.data[0]).toMatchObject({ notificationTriggered: false, reason: 'MISSING_PHNO' });

    const contact = await app.call('PATCH', '/v3/notifications/v1/contact-details', { onBehalfOf: 'dave', body: { phno: '+919876543210' } });
    expect(contact.body.data).toEqual({ email: '', phno: '+919876543210' });
    await send(app, 'hello over sms');
    const [call] = await requestsFor('twilio', (r) => new URLSearchParams(r.body).get('Body')?.includes('hello over sms') === true);
    expect(call!.path).toBe('/twilio/2010-04-01/Accounts/AC0123456789/Messages.json');
    expect(call!.headers['authorization']).toBe(`Basic ${Buffer.from('AC0123456789:twilio-secret-token').toString('base64')}`);
    expect(call!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(call!.body);
    expect([form.get('To'), form.get('From')]).toEqual(['+919876543210', '+14155550100']);
    expect((await app.call('DELETE', '/v3/notifications/sms/v1/providers/twilio')).status).toBe(200);
  });

  it('SendGrid: v3 mail send with the API key as Bearer and the app’s dynamic template', async () => {
    const saved = await app.call('POST', '/v3/notifications/email/v1/providers/sendgrid', {
      body: {
        sendGridApiKey: 'SG.secret-api-key',
        sendGridTemplateID: 'd-template',
        sendGridUnsubscribeGroupID: '42',
        senderName: 'Chat',
        senderEmail: 'noreply@example.com',
      },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.data.sendGridApiKey).toBe('****-key');
    await app.call('PATCH', '/v3/notifications/v1/contact-details', { onBehalfOf: 'dave', body: { email: 'dave@example.com' } });
    await send(app, 'hello over email');
    const [call] = await requestsFor('sendgrid', (r) => r.body.includes('hello over email'));
    expect(call!.path).toBe('/sendgrid/v3/mail/send');
    expect(call!.headers['authorization']).toBe('Bearer SG.secret-api-key');
    expect(JSON.parse(call!.body)).toMatchObject({
      personalizations: [{ to: [{ email: 'dave@example.com' }] }],
      from: { email: 'noreply@example.com', name: 'Chat' },
      template_id: 'd-template',
      asm: { group_id: 42 },
    });
    expect((await app.call('DELETE', '/v3/notifications/email/v1/providers/sendgrid')).status).toBe(200);
  });
});
