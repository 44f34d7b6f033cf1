import { beforeAll, describe, expect, it } from 'vitest';
import { call, createApp, createUser, eventually, managementHeaders } from './support/api.js';
import type { TestApp } from './support/api.js';

// The operator's views of the log (the console and chatctl read the same functions): every answer is
// checked against docs/openapi.json by the shared client, as for the chat API.
let app: TestApp;
const asOperator = { headers: managementHeaders() };

beforeAll(async () => {
  app = await createApp('ops views');
  await createUser(app, 'opsy');
});

describe('GET /ops/lag, /ops/events, /ops/deadletters and POST /ops/deadletters/redrive', () => {
  it('show the deployment’s consumer groups and an app’s events on a topic', async () => {
    const lag = await call('GET', '/ops/lag', asOperator);
    expect(lag.status, JSON.stringify(lag.body)).toBe(200);
    const rows = lag.body.data as Array<{ groupId: string; topic: string; lag: number }>;
    expect(rows.some((row) => row.topic === 'chat.users.events' && row.groupId.includes('chat_'))).toBe(true);

    const events = await eventually(
      () => call('GET', `/ops/events?topic=chat.users.events&appId=${app.appId}&type=UserCreated`, asOperator),
      (r) => r.status === 200 && (r.body.data as unknown[]).length > 0,
    );
    const created = (events.body.data as Array<{ event: { type: string; appId: string; data: { uid: string } } }>).map((row) => row.event);
    expect(created).toEqual([expect.objectContaining({ type: 'UserCreated', appId: app.appId, data: expect.objectContaining({ uid: 'opsy' }) })]);
  });

  it('list and redrive a group’s dead letters (none here), and refuse bad input and other callers', async () => {
    const letters = await call('GET', '/ops/deadletters?group=no-such-group', asOperator);
    expect(letters.status).toBe(200);
    expect(letters.body.data).toEqual([]);
    const redriven = await call('POST', '/ops/deadletters/redrive', { ...asOperator, body: { group: 'no-such-group' } });
    expect(redriven.body).toEqual({ data: { group: 'no-such-group', redriven: 0 } });

    expect((await call('GET', '/ops/events?topic=not.a.topic', asOperator)).status).toBe(400);
    expect((await call('GET', '/ops/deadletters?group=bad%20name', asOperator)).status).toBe(400);
    expect((await call('POST', '/ops/deadletters/redrive', { ...asOperator, body: {} })).status).toBe(400);
    const asTenant = await call('GET', '/ops/lag', { apiKey: app.fullAccessKey, appId: app.appId });
    expect([401, 403]).toContain(asTenant.status);
  });
});
