import { beforeAll, describe, expect, it } from 'vitest';
import { converse, createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { expectError } from './support/groups.js';

interface DataPoint {
  messagesSent: number;
  readReceipts: number;
  deliveryReceipts: number;
  startTime: string;
  endTime: string;
}

let app: TestApp;
const sum = (points: DataPoint[], field: 'messagesSent' | 'readReceipts' | 'deliveryReceipts') => points.reduce((total, p) => total + p[field], 0);

beforeAll(async () => {
  app = await createApp('stats');
  for (const uid of ['ann', 'ben']) await createUser(app, uid);
});

describe('the metrics', () => {
  it('counts messages sent and receipts in five-minute buckets, and the senders as active users', async () => {
    const before = Date.now();
    await converse(app, 'ann', 'ben', 'one');
    await converse(app, 'ann', 'ben', 'two');
    await converse(app, 'ben', 'ann', 'three');
    expect((await app.call('POST', '/v3/users/ann/conversation/delivered', { onBehalfOf: 'ben', body: {} })).status).toBe(200);
    expect((await app.call('POST', '/v3/users/ben/conversation/read', { onBehalfOf: 'ann' })).status).toBe(200);

    // Without parameters, as CometChat documents it: the last hour.
    const metrics = await eventually(
      () => app.call('GET', '/v3/stats/messages'),
      (r) => r.status === 200 && sum(r.body.data.dataPoints, 'readReceipts') === 1 && sum(r.body.data.dataPoints, 'deliveryReceipts') === 1,
    );
    expect(metrics.status).toBe(200);
    const data = metrics.body.data as { appId: string; startTime: string; endTime: string; dataPoints: DataPoint[] };
    expect(data.appId).toBe(app.appId);
    expect(data.dataPoints).toHaveLength(12);
    expect(Number(data.endTime) - Number(data.startTime)).toBe(3_600_000);
    for (const [i, point] of data.dataPoints.entries()) {
      expect(Number(point.endTime) - Number(point.startTime)).toBe(300_000);
      expect(point.startTime).toBe(String(Number(data.startTime) + i * 300_000));
    }
    expect(Number(data.endTime)).toBeGreaterThan(before);
    expect(sum(data.dataPoints, 'messagesSent')).toBe(3);
    expect(sum(data.dataPoints, 'readReceipts')).toBe(1);
    expect(sum(data.dataPoints, 'deliveryReceipts')).toBe(1);

    // The range in epoch milliseconds (CometChat's example echoes it so) and in seconds count the same.
    const fromMs = before - 60_000;
    const toMs = Date.now() + 60_000;
    const usage = await app.call('GET', `/v3/stats?fromDate=${fromMs}&toDate=${toMs}`);
    expect(usage.status).toBe(200);
    expect(usage.body.data).toEqual({
      metrics: { audio_minutes: 0, video_minutes: 0, recorded_minutes: 0, active_users: 2, concurrent_users: 0 },
      time_range: { fromDate: fromMs, toDate: toMs },
    });
    const inSeconds = await app.call('GET', `/v3/stats?fromDate=${Math.floor(fromMs / 1000)}&toDate=${Math.ceil(toMs / 1000)}`);
    expect(inSeconds.body.data.metrics.active_users).toBe(2);
    const window = await app.call('GET', `/v3/stats/messages?fromDate=${fromMs}&toDate=${toMs}`);
    expect(sum(window.body.data.dataPoints, 'messagesSent')).toBe(3);
  });

  it('answers 400 without the range CometChat requires for usage, and for a bad range', async () => {
    const now = Math.floor(Date.now() / 1000);
    const missing = await app.call('GET', '/v3/stats');
    expectError(missing, 400, 'ERR_BAD_REQUEST');
    expect(missing.body.error.message).toMatch(/fromDate: required/);
    expect((await app.call('GET', `/v3/stats?fromDate=${now - 60}`)).body.error.message).toMatch(/toDate: required/);
    expectError(await app.call('GET', `/v3/stats?fromDate=${now}&toDate=${now - 60}`), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('GET', `/v3/stats/messages?fromDate=soon`), 400, 'ERR_BAD_REQUEST');
  });
});
