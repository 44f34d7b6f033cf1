import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { expectError } from './support/groups.js';

let app: TestApp;
const t0 = Math.floor(Date.now() / 1000) - 3_600;

/** A GET through the gateway with a Host header of our choosing (fetch cannot set one). */
function getWithHost(path: string, host: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const gateway = new URL(inject('gatewayUrl'));
  return new Promise((resolve, reject) => {
    const req = request({ hostname: gateway.hostname, port: gateway.port, path, method: 'GET', headers: { ...headers, host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

function callMessage(muid: string, sender: string, receiver: string, action: string, sentAt: number, extra: Record<string, unknown> = {}) {
  return { muid, sender, receiverType: 'user', receiver, category: 'call', type: 'audio', data: { action, sessionId: 'sess-1', ...extra }, sentAt };
}

beforeAll(async () => {
  app = await createApp('calls');
  for (const uid of ['alice', 'bob', 'carol']) await createUser(app, uid);
  // An imported one-on-one audio call: rung at t0, answered 10 s later, ended two minutes after that.
  const imported = await app.call('POST', '/v3/data_import/messages', {
    body: {
      messages: {
        c1: callMessage('c1', 'alice', 'bob', 'initiated', t0),
        c2: callMessage('c2', 'bob', 'alice', 'ongoing', t0 + 10),
        c3: callMessage('c3', 'alice', 'bob', 'ended', t0 + 130, {
          transcriptions: [{ tid: 'tr-1', startTime: t0 + 10, endTime: t0 + 130, transcriptUrl: 'https://transcripts.example.com/tr-1.json' }],
        }),
      },
    },
  });
  if (imported.status !== 200 || !Object.values(imported.body.data).every((r: any) => r.success)) {
    throw new Error(`call import failed: ${JSON.stringify(imported.body)}`);
  }
});

describe('the calls API', () => {
  it('folds a call’s messages into the call record with participants, duration and status', async () => {
    const got = await app.call('GET', '/v3/calls/sess-1');
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({
      sessionId: 'sess-1',
      type: 'audio',
      mode: 'call',
      initiator: 'alice',
      receiver: 'bob',
      receiverType: 'user',
      status: 'ended',
      initiatedAt: t0,
      startedAt: t0 + 10,
      endedAt: t0 + 130,
      totalDuration: '00:02:00',
      totalDurationInMinutes: 2,
      totalAudioMinutes: 2,
      totalVideoMinutes: 0,
      totalParticipants: 2,
      hasTranscription: true,
      hasRecording: false,
      metaData: [],
      tags: [],
    });
    expect(got.body.data.participants).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ uid: 'alice', isJoined: true, joinedAt: t0 + 10, leftAt: t0 + 130, totalDuration: 2, state: 'ended' }),
        expect.objectContaining({ uid: 'bob', isJoined: true, joinedAt: t0 + 10, leftAt: t0 + 130, totalAudioMinutes: 2 }),
      ]),
    );
  });

  it('lists calls with the catalogue’s filters and pagination, and only the acting user’s calls on their behalf', async () => {
    // A live call through POST /messages: rung, then rejected.
    const send = (from: string, to: string, action: string) =>
      app.call('POST', '/v3/messages', { onBehalfOf: from, body: { receiver: to, receiverType: 'user', category: 'call', type: 'video', data: { action, sessionId: 'sess-2' } } });
    expect((await send('carol', 'alice', 'initiated')).status).toBe(200);
    expect((await send('alice', 'carol', 'rejected')).status).toBe(200);
    const all = await eventually(() => app.call('GET', '/v3/calls'), (r) => r.body?.data?.length === 2);
    expect(all.body.meta.pagination).toMatchObject({ total: 2, count: 2, current_page: 1, total_pages: 1 });
    expect((await app.call('GET', '/v3/calls/sess-2')).body.data).toMatchObject({ status: 'rejected', type: 'video', initiator: 'carol', totalParticipants: 0 });

    const ended = await app.call('GET', '/v3/calls?status=ended');
    expect(ended.body.data.map((c: any) => c.sessionId)).toEqual(['sess-1']);
    expect((await app.call('GET', '/v3/calls?type=video')).body.data.map((c: any) => c.sessionId)).toEqual(['sess-2']);
    expect((await app.call('GET', '/v3/calls?hasTranscription=true')).body.data.map((c: any) => c.sessionId)).toEqual(['sess-1']);
    expect((await app.call('GET', '/v3/calls?uid=bob')).body.data.map((c: any) => c.sessionId)).toEqual(['sess-1']);
    const paged = await app.call('GET', '/v3/calls?perPage=1&page=2');
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.meta.pagination).toMatchObject({ total: 2, total_pages: 2, current_page: 2 });

    expect((await app.call('GET', '/v3/calls', { onBehalfOf: 'bob' })).body.data.map((c: any) => c.sessionId)).toEqual(['sess-1']);
    expect((await app.call('GET', '/v3/calls?uid=carol', { onBehalfOf: 'alice' })).body.data.map((c: any) => c.sessionId)).toEqual(['sess-2']);
    expect((await app.call('GET', '/v3/calls?uid=carol', { onBehalfOf: 'bob' })).body.data).toEqual([]);
    expectError(await app.call('GET', '/v3/calls/sess-2', { onBehalfOf: 'bob' }), 404, 'ERR_CALL_NOT_FOUND');
    expectError(await app.call('GET', '/v3/calls/nope'), 404, 'ERR_CALL_NOT_FOUND');
    expectError(await app.call('GET', '/v3/calls?status=bogus'), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('GET', '/v3/calls?colour=red'), 400, 'ERR_BAD_REQUEST');
  });

  it('lists a session’s transcriptions as CometChat shows them', async () => {
    const listed = await app.call('GET', '/v3/calls/sess-1/transcriptions');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      {
        roomName: 'sess-1',
        mid: expect.any(String),
        tid: 'tr-1',
        startTime: t0 + 10,
        endTime: t0 + 130,
        transcriptDate: new Date((t0 + 10) * 1000).toISOString(),
        transcriptUrl: 'https://transcripts.example.com/tr-1.json',
      },
    ]);
    expect(listed.body.meta.pagination).toMatchObject({ total: 1, count: 1, per_page: 100 });
    expect((await app.call('GET', '/v3/calls/sess-2/transcriptions')).body.data).toEqual([]);
  });

  it('counts call minutes, active users and the peak in calls in GET /stats, and messages per five minutes in /stats/messages', async () => {
    const now = Math.floor(Date.now() / 1000);
    const stats = await app.call('GET', `/v3/stats?fromDate=${t0 - 60}&toDate=${now + 60}`);
    expect(stats.status).toBe(200);
    // Two participants talked for two minutes in an audio call; alice, bob and carol sent messages.
    expect(stats.body.data).toEqual({
      metrics: { audio_minutes: 4, video_minutes: 0, recorded_minutes: 0, active_users: 3, concurrent_users: 2 },
      time_range: { fromDate: t0 - 60, toDate: now + 60 },
    });
    const early = await app.call('GET', `/v3/stats?fromDate=${t0 - 60}&toDate=${t0 + 70}`);
    expect(early.body.data.metrics).toMatchObject({ audio_minutes: 2, active_users: 2 });
    expectError(await app.call('GET', `/v3/stats?fromDate=yesterday&toDate=${now}`), 400, 'ERR_BAD_REQUEST');
    // CometChat requires the range.
    expectError(await app.call('GET', '/v3/stats'), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('GET', `/v3/stats?fromDate=${now}&toDate=${t0}`), 400, 'ERR_BAD_REQUEST');

    const daily = await app.call('GET', `/v3/stats/messages?fromDate=${t0 - 60}&toDate=${now + 60}`);
    expect(daily.status).toBe(200);
    expect(daily.body.data.appId).toBe(app.appId);
    const points = daily.body.data.dataPoints as { messagesSent: number }[];
    expect(points.reduce((sum, p) => sum + p.messagesSent, 0)).toBe(5);
  });

  it('refuses call messages without a session or action', async () => {
    const bad = (data: Record<string, unknown>, type = 'audio') =>
      app.call('POST', '/v3/messages', { onBehalfOf: 'alice', body: { receiver: 'bob', receiverType: 'user', category: 'call', type, data } });
    expectError(await bad({ action: 'initiated' }), 400, 'ERR_INVALID_MESSAGE_DATA');
    expectError(await bad({ action: 'dancing', sessionId: 'x' }), 400, 'ERR_INVALID_MESSAGE_DATA');
    expectError(await bad({ action: 'initiated', sessionId: 'x' }, 'text'), 400, 'ERR_INVALID_MESSAGE_TYPE');
  });

  it('serves the calls host with the same apikey rules, and not the chat host', async () => {
    const callsHost = `${app.appId}.call-us.chat.localhost`;
    const ok = await getWithHost('/v3/calls/sess-1', callsHost, { apikey: app.fullAccessKey });
    expect(ok.status).toBe(200);
    expect(ok.body.data.sessionId).toBe('sess-1');
    expect((await getWithHost('/v3/calls', callsHost, { apikey: app.fullAccessKey })).body.data).toHaveLength(2);
    expect((await getWithHost('/v3/calls', callsHost, {})).body.error.code).toBe('AUTH_ERR_EMPTY_APIKEY');
    expect((await getWithHost('/v3/calls', callsHost, { apikey: app.authOnlyKey })).body.error.code).toBe('AUTH_ERR_NO_ACCESS');
    // The calls host serves only the calls API; the chat host not the calls API.
    expect((await getWithHost('/v3/users', callsHost, { apikey: app.fullAccessKey })).status).toBe(404);
    expect((await getWithHost('/v3/calls', `${app.appId}.api-us.chat.localhost`, { apikey: app.fullAccessKey })).status).toBe(404);
  });
});
