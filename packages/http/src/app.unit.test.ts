import { createServer } from 'node:http';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceApp } from './app.js';
import { createLogger } from './logger.js';

/** Serves `handler` on a free port for the enclosing describe block, telling its base URL. */
function served(handler: RequestListener, at: (url: string) => void): void {
  const server = createServer(handler);
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    at(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

/** A driver error as the mongodb driver or kafkajs throws it: a subclass whose name says what failed. */
class MongoServerSelectionError extends Error {
  override name = 'MongoServerSelectionError';
}

/** An insert cut off by a lost connection: the driver throws a bulk write error that has no write errors. */
class MongoBulkWriteError extends Error {
  override name = 'MongoBulkWriteError';
  constructor(
    message: string,
    readonly writeErrors: unknown[],
  ) {
    super(message);
  }
}

describe('the service app error mapping', () => {
  const router = Router();
  router.get('/store-down', () => {
    throw new MongoServerSelectionError('connect ECONNREFUSED 127.0.0.1:27017');
  });
  router.get('/insert-cut-off', () => {
    throw new MongoBulkWriteError('connection 10 to 127.0.0.1:27017 closed', []);
  });
  router.get('/bulk-refused', () => {
    throw new MongoBulkWriteError('document failed validation', [{ index: 0, code: 121 }]);
  });
  router.get('/socket-ended', () => {
    throw Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' });
  });
  router.get('/bug', () => {
    throw new TypeError('undefined is not a function');
  });
  let url = '';
  served(createServiceApp({ logger: pino({ level: 'silent' }), routers: [router] }), (at) => (url = at));

  it('answers 503 with Retry-After when the store or the broker cannot be reached', async () => {
    const response = await fetch(`${url}/store-down`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({ error: { code: 'ERR_SERVICE_UNAVAILABLE' } });
  });

  it('answers 503 for a bulk write the connection cut off, 500 for one the store refused', async () => {
    expect((await fetch(`${url}/insert-cut-off`)).status).toBe(503);
    expect((await fetch(`${url}/bulk-refused`)).status).toBe(500);
    expect((await fetch(`${url}/socket-ended`)).status).toBe(503);
  });

  it('answers 500 for anything else it did not expect', async () => {
    const response = await fetch(`${url}/bug`);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: 'ERR_EXCEPTION' } });
  });
});

describe('the service app\'s logs', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('logtest', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const router = Router();
  router.get('/work', async (_req, res) => {
    // Logged after an await, from code that was never handed the request.
    await new Promise((resolve) => setTimeout(resolve, 5));
    logger.info('deep inside the use case');
    res.json({ data: {} });
  });
  let url = '';
  served(createServiceApp({ logger, routers: [router] }), (at) => (url = at));

  it('carry the id of the request being served on every line, and none outside a request', async () => {
    await Promise.all(['req-a', 'req-b'].map((id) => fetch(`${url}/work`, { headers: { 'x-request-id': id } })));
    logger.info('between requests');
    const inside = lines.filter((line) => line['msg'] === 'deep inside the use case').map((line) => line['requestId']);
    expect(inside.sort()).toEqual(['req-a', 'req-b']);
    expect(lines.find((line) => line['msg'] === 'between requests')).not.toHaveProperty('requestId');
  });
});
