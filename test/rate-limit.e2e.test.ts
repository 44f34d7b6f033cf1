import { setTimeout as sleep } from 'node:timers/promises';
import { startExtraGateway } from '@chat/devstack';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { checkedFetch } from './support/responseContract.js';

/**
 * A 429 through a real gateway: a second gateway in front of the same services and Redis, configured
 * with a tiny limit for one app only (`RATE_LIMIT_APP_OVERRIDES`), so the rest of the suite keeps the
 * published limits.
 */
const LIMIT = 5;
let limited: TestApp;
let neighbour: TestApp;
let gateway: { url: string; stop(): Promise<void> };
let base: string;

beforeAll(async () => {
  limited = await createApp('tiny limit');
  neighbour = await createApp('neighbour');
  gateway = await startExtraGateway({
    serviceUrls: inject('serviceUrls'),
    redisUrl: inject('redisUrl'),
    managementKey: inject('managementKey'),
    managementSecret: inject('managementSecret'),
    env: { RATE_LIMIT_APP_OVERRIDES: JSON.stringify({ [limited.appId]: { standard: LIMIT } }) },
  });
  base = gateway.url;
});

afterAll(async () => {
  await gateway?.stop();
});

const listUsers = (app: TestApp) => call('GET', '/v3/users', { appId: app.appId, apiKey: app.fullAccessKey }).then((r) => r);

describe('rate limits through the gateway', () => {
  it(`answers 429 ERR_TOO_MANY_REQUESTS with Retry-After past ${LIMIT} requests, counting down the headers; another app is untouched`, async () => {
    const viaSecond = (app: TestApp) =>
      checkedFetch(`${base}/v3/users`, { headers: { appId: app.appId, apikey: app.fullAccessKey } }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as any }));
    // Seven requests must fall in one fixed one-minute window.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 55_000) await sleep(60_500 - intoWindow);
    const answers = [];
    for (let i = 0; i < LIMIT + 2; i++) answers.push(await viaSecond(limited));
    expect(answers.map((a) => a.status)).toEqual([...Array<number>(LIMIT).fill(200), 429, 429]);
    expect(answers.map((a) => a.headers.get('x-rate-limit'))).toEqual(Array<string>(LIMIT + 2).fill(String(LIMIT)));
    expect(answers.map((a) => Number(a.headers.get('x-rate-limit-remaining')))).toEqual([4, 3, 2, 1, 0, 0, 0]);
    const refused = answers[LIMIT]!;
    expect(refused.body.error.code).toBe('ERR_TOO_MANY_REQUESTS');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Number(refused.headers.get('x-rate-limit-reset'))).toBeGreaterThan(Date.now() / 1000);
    // The neighbour keeps the published limit, on this gateway and on the suite's own.
    const other = await viaSecond(neighbour);
    expect(other.status).toBe(200);
    expect(other.headers.get('x-rate-limit')).toBe('20000');
    expect((await listUsers(neighbour)).status).toBe(200);
  });
});
