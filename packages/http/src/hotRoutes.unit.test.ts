import { createServer } from 'node:http';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, consistencyHeaders, decodeConsistencyToken } from '@chat/contracts';
import { Router } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceApp } from './app.js';
import { recordProducedPositions } from './consistency.js';
import { answeringHotRoutes, parseJsonBody } from './hotRoutes.js';
import type { HotRequest } from './hotRoutes.js';

/** The route's work, the same for express and the hot route: echoes the body, records a write, or fails as the body says. */
async function echo(req: HotRequest): Promise<unknown> {
  const body = req.body as { fail?: string; wrote?: number } | unknown[];
  if (!Array.isArray(body) && body.fail === 'api') throw new ApiError('ERR_UID_NOT_FOUND', 'no such user', { fields: [{ field: 'receiver', problem: 'unknown' }] });
  if (!Array.isArray(body) && body.fail === 'store') throw Object.assign(new Error('gone'), { name: 'MongoServerSelectionError' });
  if (!Array.isArray(body) && body.fail === 'bug') throw new TypeError('boom');
  await Promise.resolve();
  if (!Array.isArray(body) && body.wrote !== undefined) recordProducedPositions([{ streamId: 'conversation-1', version: body.wrote }]);
  return { data: { got: req.body, app: req.headers['x-chat-app-id'] ?? null } };
}

function serve(handler: RequestListener): { url: () => string } {
  const server = createServer(handler);
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: () => url };
}

describe('a hot route answers as the express route it stands in front of', () => {
  const logger = pino({ level: 'silent' });
  const router = Router();
  let viaExpress = 0;
  router.post('/v3/things', async (req, res) => {
    viaExpress += 1;
    res.json(await echo(req));
  });
  const app = createServiceApp({ logger, routers: [router], bodyLimit: '1kb' });
  const plain = serve(app);
  const hot = serve(answeringHotRoutes([{ path: '/v3/things', bodyLimit: 1024, answer: echo }], app, logger));

  const cases: { name: string; body: string; headers?: Record<string, string>; path?: string }[] = [
    { name: 'an object', body: '{"a":1,"b":"é"}' },
    { name: 'an array', body: ' [1,2]' },
    { name: 'an empty body', body: '' },
    { name: 'a byte-order mark', body: '\uFEFF{"a":2}' },
    { name: 'a charset', body: '{"a":3}', headers: { 'content-type': 'application/json; charset=utf-8' } },
    { name: 'a string at the top (strict)', body: '"text"' },
    { name: 'broken JSON', body: '{"a":' },
    { name: 'a write (consistency token)', body: '{"wrote":7}' },
    { name: 'an API error', body: '{"fail":"api"}' },
    { name: 'the store away', body: '{"fail":"store"}' },
    { name: 'a bug', body: '{"fail":"bug"}' },
    { name: 'a body over the limit', body: JSON.stringify({ text: 'x'.repeat(2000) }) },
    { name: 'another content type', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    { name: 'a query string', body: '{"a":4}', path: '/v3/things?x=1' },
  ];

  for (const { name, body, headers, path = '/v3/things' } of cases) {
    it(`gives the same answer for ${name}`, async () => {
      const send = (base: string) =>
        fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-chat-app-id': 'app1', ...headers }, body });
      const [a, b] = [await send(plain.url()), await send(hot.url())];
      expect(b.status).toBe(a.status);
      expect(b.headers.get('content-type')).toBe(a.headers.get('content-type'));
      expect(b.headers.get('retry-after')).toBe(a.headers.get('retry-after'));
      expect(b.headers.get(consistencyHeaders.token)).toBe(a.headers.get(consistencyHeaders.token));
      expect(await b.text()).toBe(await a.text());
    });
  }

  it('takes only the exact route: a query, an encoding, another method and an oversized body go to express', async () => {
    const before = viaExpress;
    await fetch(`${hot.url()}/v3/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(viaExpress).toBe(before);
    await fetch(`${hot.url()}/v3/things?x=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    await fetch(`${hot.url()}/v3/things`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'identity' }, body: '{"a":1}' });
    await fetch(`${hot.url()}/v3/things`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    // The query and the encoding reached express's route; PUT is no route there (404).
    expect(viaExpress).toBe(before + 2);
    // Over the limit: express's parser refuses it before the route.
    const large = await fetch(`${hot.url()}/v3/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ t: 'x'.repeat(1100) }) });
    expect(large.status).toBe(413);
    const token = (await fetch(`${hot.url()}/v3/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"wrote":3}' })).headers.get(consistencyHeaders.token);
    expect(decodeConsistencyToken(token ?? '')).toEqual(new Map([['conversation-1', 3]]));
  });
});

describe('parseJsonBody', () => {
  it('reads as express.json does in strict mode', () => {
    expect(parseJsonBody('')).toEqual({});
    expect(parseJsonBody('\r\n {"a":[1]}')).toEqual({ a: [1] });
    expect(() => parseJsonBody('1')).toThrow();
    expect(() => parseJsonBody('{')).toThrow();
  });
});
