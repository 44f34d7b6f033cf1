import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserExistenceClient } from './userExistence.js';

/** A stand-in users replica on a real socket: `ann` exists in app1, `boom` fails, anything else is unknown. */
function usersReplica(): Promise<{ server: Server; url: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    if (req.url === '/internal/apps/app1/users/ann/exists') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"uid":"ann"}');
    if (req.url?.includes('/boom/')) return void res.writeHead(503).end();
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"ERR_UID_NOT_FOUND","message":"none"}}');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked })));
}

describe('asking the users service whether a user exists', () => {
  let replica: Awaited<ReturnType<typeof usersReplica>>;
  beforeAll(async () => {
    replica = await usersReplica();
  });
  afterAll(() => new Promise<void>((resolve) => replica.server.close(() => resolve())));

  it('answers true on 200 and false on 404, for the uid of the app asked', async () => {
    const client = new UserExistenceClient([replica.url]);
    expect(await client.exists('app1', 'ann')).toBe(true);
    expect(await client.exists('app2', 'ann')).toBe(false);
    expect(await client.exists('app1', 'bob')).toBe(false);
  });

  it('throws on a failure rather than call the user unknown, after passing over a replica that does not answer', async () => {
    const client = new UserExistenceClient(['http://127.0.0.1:1', replica.url]);
    expect(await client.exists('app1', 'ann')).toBe(true);
    await expect(new UserExistenceClient([replica.url]).exists('app1', 'boom')).rejects.toThrow(/503/);
    await expect(new UserExistenceClient(['http://127.0.0.1:1']).exists('app1', 'ann')).rejects.toThrow();
  });
});
