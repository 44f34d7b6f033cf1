import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceApp } from './app.js';

/** A driver error as the mongodb driver or kafkajs throws it: a subclass whose name says what failed. */
class MongoServerSelectionError extends Error {
  override name = 'MongoServerSelectionError';
}

describe('the service app error mapping', () => {
  const router = Router();
  router.get('/store-down', () => {
    throw new MongoServerSelectionError('connect ECONNREFUSED 127.0.0.1:27017');
  });
  router.get('/bug', () => {
    throw new TypeError('undefined is not a function');
  });
  const server = createServer(createServiceApp({ logger: pino({ level: 'silent' }), routers: [router] }));
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers 503 with Retry-After when the store or the broker cannot be reached', async () => {
    const response = await fetch(`${url}/store-down`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({ error: { code: 'ERR_SERVICE_UNAVAILABLE' } });
  });

  it('answers 500 for anything else it did not expect', async () => {
    const response = await fetch(`${url}/bug`);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: 'ERR_EXCEPTION' } });
  });
});
