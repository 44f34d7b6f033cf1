import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFile, stat } from 'node:fs/promises';
import { startExtraGateway } from '@chat/devstack';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { percentile } from '../bench/percentile.mjs';
import { createApp, createUser, managementHeaders } from './support/api.js';
import type { TestApp } from './support/api.js';
import { checkedFetch } from './support/responseContract.js';
import { mapBounded } from './support/concurrency.js';

/**
 * Guessing keys costs the guesser, not the tenant (ADR 0040), through a real gateway with the
 * production failure budgets (the suite's own gateway has them lifted: the suite fails on purpose).
 * It trusts X-Forwarded-For from loopback, so each guesser below is a source of its own while the
 * tenant's client is 127.0.0.1 itself.
 */
const BURST = 50;
const PER_MINUTE = 120;
const MANAGEMENT_BURST = 10;
const GUESSERS = 6;
const GUESSES = 3_000;
const VALID_WORKERS = 4;
const VALID_REQUESTS = 400;

let app: TestApp;
let gateway: { url: string; logFile: string; stop(): Promise<void> };

beforeAll(async () => {
  app = await createApp('guessed');
  await createUser(app, 'guessed-user');
  gateway = await startExtraGateway({
    serviceUrls: inject('serviceUrls'),
    redisUrl: inject('redisUrl'),
    managementKey: inject('managementKey'),
    managementSecret: inject('managementSecret'),
    env: {
      LOG_LEVEL: 'warn',
      GATEWAY_TRUSTED_PROXIES: '127.0.0.1,::1',
      AUTH_FAILURE_BURST: String(BURST),
      AUTH_FAILURES_PER_MINUTE: String(PER_MINUTE),
      MANAGEMENT_LOGIN_FAILURE_BURST: String(MANAGEMENT_BURST),
      MANAGEMENT_LOGIN_FAILURES_PER_MINUTE: '10',
    },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
});

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** Latencies (ms) of the tenant's own valid reads, a few clients at a time; every one must succeed. */
async function validLatencies(): Promise<number[]> {
  const latencies = await mapBounded(Array.from({ length: VALID_REQUESTS }), VALID_WORKERS, async () => {
    const started = performance.now();
    const response = await checkedFetch(`${gateway.url}/v3/users/guessed-user`, { headers: { appid: app.appId, apikey: app.fullAccessKey } });
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    return performance.now() - started;
  });
  return latencies.sort((a, b) => a - b);
}

interface Guess {
  status: number;
  code: string;
  retryAfter: string | null;
}

async function guess(source: string): Promise<Guess> {
  const response = await checkedFetch(`${gateway.url}/v3/users/guessed-user`, {
    headers: { appid: app.appId, apikey: randomBytes(20).toString('hex'), 'x-forwarded-for': `192.0.2.200, ${source}` },
  });
  const body = (await response.json()) as { error: { code: string } };
  return { status: response.status, code: body.error.code, retryAfter: response.headers.get('retry-after') };
}

/**
 * The guessers run in a process of their own, so the time the test measures for the tenant's
 * requests is the gateway's, not this process's event loop busy with the flood. Each source keeps
 * four requests in flight; the script prints every answer's status, code and Retry-After.
 */
const FLOOD_SCRIPT = `
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
const [url, appId, sources, perSource] = JSON.parse(process.argv[1]);
const target = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const one = (source) => new Promise((resolve, reject) => {
  const req = request({ agent, hostname: target.hostname, port: target.port, path: '/v3/users/guessed-user',
    headers: { appid: appId, apikey: randomBytes(20).toString('hex'), 'x-forwarded-for': '192.0.2.200, ' + source } }, (res) => {
    let text = '';
    res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => resolve({ status: res.statusCode, code: JSON.parse(text).error.code, retryAfter: res.headers['retry-after'] ?? null }));
  });
  req.on('error', reject).end();
});
const answers = [];
await Promise.all(sources.flatMap((source) => Array.from({ length: 4 }, async (_, lane) => {
  for (let i = lane; i < perSource; i += 4) answers.push(await one(source));
})));
process.stdout.write(JSON.stringify(answers));
`;

async function flood(sources: readonly string[], perSource: number): Promise<Guess[]> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', FLOOD_SCRIPT, JSON.stringify([gateway.url, app.appId, sources, perSource])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the guessers' process exited with ${code}`);
  return JSON.parse(out) as Guess[];
}

describe('key guessing', () => {
  it(`${GUESSES} random keys from ${GUESSERS} sources: the guessers get 429s, the tenant's valid requests keep their p99`, async () => {
    // Warm: connections open and the tenant's key cached, as on a gateway that has been serving.
    await validLatencies();
    const alone = await validLatencies();
    const lookupsBefore = await metric('gateway_api_key_lookups_total');

    const sources = Array.from({ length: GUESSERS }, (_, i) => `203.0.113.${i + 1}`);
    const floodStarted = performance.now();
    const [guesses, during] = await Promise.all([
      flood(sources, GUESSES / GUESSERS),
      validLatencies(),
    ]);
    const floodSeconds = (performance.now() - floodStarted) / 1000;
    const lookups = (await metric('gateway_api_key_lookups_total')) - lookupsBefore;

    const refused = guesses.filter((g) => g.status === 401);
    const limited = guesses.filter((g) => g.status === 429);
    const p99Alone = percentile(alone, 99);
    const p99During = percentile(during, 99);
    console.log(
      `key guessing: ${GUESSES} guesses from ${GUESSERS} sources in ${floodSeconds.toFixed(1)} s: ${refused.length} × 401, ${limited.length} × 429; ` +
        `${lookups} key look-ups reached management; valid p50/p99 alone ${percentile(alone, 50).toFixed(1)}/${p99Alone.toFixed(1)} ms, ` +
        `during the flood ${percentile(during, 50).toFixed(1)}/${p99During.toFixed(1)} ms`,
    );

    // Nothing but refusals for the guessers: 401 while a source has failures left, then 429 with Retry-After.
    expect(refused.length + limited.length).toBe(GUESSES);
    expect(new Set(refused.map((g) => g.code))).toEqual(new Set(['AUTH_ERR_APIKEY_NOT_FOUND']));
    expect(new Set(limited.map((g) => g.code))).toEqual(new Set(['ERR_TOO_MANY_REQUESTS']));
    for (const g of limited) expect(Number(g.retryAfter)).toBeGreaterThanOrEqual(1);
    // A source's budget, plus what it earns back while the flood lasts (two per second), not more.
    const allowance = GUESSERS * (BURST + Math.ceil((floodSeconds * PER_MINUTE) / 60) + 1);
    expect(refused.length).toBeLessThanOrEqual(allowance);
    // Only the guesses a source was allowed cost a look-up; the tenant's key costs none (cached here).
    expect(lookups).toBeLessThanOrEqual(allowance);
    expect(lookups).toBeGreaterThanOrEqual(GUESSERS * BURST);
    // The tenant's requests (all 200, checked in validLatencies) keep their latency. Generous, for a
    // shared machine under other load; what a flood whose every guess went to Redis and management
    // would cost is bounded exactly by the look-up count above.
    expect(p99During).toBeLessThanOrEqual(Math.max(3 * p99Alone, p99Alone + 100));
    expect(floodSeconds).toBeLessThan(60);
  }, 120_000);

  it('a real key from a refused source still works; another source is untouched', async () => {
    const source = '203.0.113.99';
    let last: Guess | undefined;
    for (let i = 0; i < BURST + 30 && last?.status !== 429; i++) last = await guess(source);
    expect(last?.status).toBe(429);
    // Known to this gateway, so it passes without costing the source anything.
    const valid = await checkedFetch(`${gateway.url}/v3/users/guessed-user`, { headers: { appid: app.appId, apikey: app.fullAccessKey, 'x-forwarded-for': source } });
    expect(valid.status).toBe(200);
    expect((await guess('198.51.100.77')).status).toBe(401);
  }, 60_000);

  it(`failed management logins: ${MANAGEMENT_BURST} per source, then 429 before the secret is compared; each failure logged with its source, not the secret`, async () => {
    const source = '198.51.100.9';
    const wrongSecret = `wrong-${randomBytes(8).toString('hex')}`;
    const login = (secret: string, from: string) =>
      checkedFetch(`${gateway.url}/apps`, { headers: { ...managementHeaders(), secret, 'x-forwarded-for': from } }).then(async (r) => ({
        status: r.status,
        retryAfter: r.headers.get('retry-after'),
        body: (await r.json()) as { error?: { code: string } },
      }));
    // The log file is appended to by every gateway that had this port: read only what this test adds.
    const logStart = (await stat(gateway.logFile)).size;
    const answers = [];
    for (let i = 0; i < MANAGEMENT_BURST + 3; i++) answers.push(await login(wrongSecret, source));
    expect(answers.map((a) => a.status)).toEqual([...Array<number>(MANAGEMENT_BURST).fill(401), 429, 429, 429]);
    expect(answers[MANAGEMENT_BURST]!.body.error?.code).toBe('ERR_TOO_MANY_REQUESTS');
    expect(Number(answers[MANAGEMENT_BURST]!.retryAfter)).toBeGreaterThanOrEqual(1);
    // Refused before comparing: even the right secret from that source waits.
    expect((await login(managementHeaders().secret!, source)).status).toBe(429);
    expect((await login(managementHeaders().secret!, '198.51.100.10')).status).toBe(200);

    const log = (await readFile(gateway.logFile)).subarray(logStart).toString('utf8');
    const failures = log.split('\n').filter((line) => line.includes('management login failed') && line.includes(`"source":"${source}"`));
    expect(failures).toHaveLength(MANAGEMENT_BURST);
    expect(log).not.toContain(wrongSecret);
    expect(log).not.toContain(managementHeaders().secret!);
  });
  it(`auth-token guesses on the realtime channel draw on the same budget: ${BURST} per source, then 429 before the users service is asked`, async () => {
    const source = '198.51.100.23';
    const events = (token: string, from: string) =>
      checkedFetch(`${gateway.url}/v3/realtime/events?appId=${app.appId}&authToken=${token}`, { headers: { 'x-forwarded-for': from } }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { error?: { code: string } },
      }));
    const answers = await mapBounded(Array.from({ length: BURST + 20 }, () => randomBytes(20).toString('hex')), 1, (token) => events(token, source));
    const refused = answers.filter((a) => a.status === 429);
    const unknown = answers.filter((a) => a.status === 401 && a.body.error?.code === 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
    expect(refused.length + unknown.length).toBe(answers.length);
    // The burst, plus what the per-minute rate refills while the guesses run (a few per second).
    expect(unknown.length).toBeGreaterThanOrEqual(BURST);
    expect(unknown.length).toBeLessThan(BURST + 10);
    expect(answers.at(-1)!.status).toBe(429);
    expect(refused[0]!.body.error?.code).toBe('ERR_TOO_MANY_REQUESTS');
    // The same source is refused on REST too: one budget per address for every kind of credential.
    const rest = await checkedFetch(`${gateway.url}/v3/users`, { headers: { appid: app.appId, authtoken: randomBytes(20).toString('hex'), 'x-forwarded-for': source } });
    expect(rest.status).toBe(429);
  }, 60_000);
});
