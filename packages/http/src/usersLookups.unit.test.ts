import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersLookups, UsersServiceUnavailableError, usersOrigins } from './usersLookups.js';
import { isUnreachableError } from './app.js';

const ANN_TOKEN_HASH = 'a'.repeat(64);

/** A stand-in users replica on a real socket: `ann` exists in app1 and owns one token; `boom` fails; anything else is unknown. */
function usersReplica(): Promise<{ server: Server; url: string; asked: string[] }> {
  const asked: string[] = [];
  const json = (res: ServerResponse, status: number, body: unknown) =>
    void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    if (req.url === '/internal/apps/app1/users/ann/exists') return json(res, 200, { uid: 'ann' });
    if (req.url === `/internal/apps/app1/authtokens/${ANN_TOKEN_HASH}`) return json(res, 200, { uid: 'ann', tokenId: ANN_TOKEN_HASH });
    if (req.url === '/internal/apps/app1/users/odd/exists') return json(res, 200, { name: 'no uid' });
    if (req.url?.includes('boom')) return void res.writeHead(503).end();
    json(res, 404, { error: { code: 'ERR_UID_NOT_FOUND', message: 'none' } });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked })));
}

describe('asking the users service about its users and auth tokens', () => {
  let replica: Awaited<ReturnType<typeof usersReplica>>;
  beforeAll(async () => {
    replica = await usersReplica();
  });
  afterAll(() => new Promise<void>((resolve) => replica.server.close(() => resolve())));

  it('answers whether a user exists: true on 200 and false on 404, for the uid of the app asked', async () => {
    const lookups = new UsersLookups([replica.url]);
    expect(await lookups.userExists('app1', 'ann')).toBe(true);
    expect(await lookups.userExists('app2', 'ann')).toBe(false);
    expect(await lookups.userExists('app1', 'bob')).toBe(false);
    await expect(lookups.userExists('app1', 'odd')).rejects.toThrow();
  });

  it("answers an auth token's owner by its hash, null for a token the app does not have", async () => {
    const lookups = new UsersLookups([replica.url]);
    expect(await lookups.authTokenOwner('app1', ANN_TOKEN_HASH)).toEqual({ uid: 'ann', tokenId: ANN_TOKEN_HASH });
    expect(await lookups.authTokenOwner('app2', ANN_TOKEN_HASH)).toBeNull();
    expect(await lookups.authTokenOwner('app1', 'b'.repeat(64))).toBeNull();
  });

  it('throws on a failure rather than answer "none", after passing over a replica that does not answer', async () => {
    const lookups = new UsersLookups(['http://127.0.0.1:1', replica.url]);
    expect(await lookups.userExists('app1', 'ann')).toBe(true);
    await expect(new UsersLookups([replica.url]).userExists('app1', 'boom')).rejects.toThrow(/503/);
    await expect(new UsersLookups([replica.url]).authTokenOwner('app1', 'boom')).rejects.toThrow(/503/);
    await expect(new UsersLookups(['http://127.0.0.1:1']).userExists('app1', 'ann')).rejects.toThrow();
    // Named so the shared error mapping answers 503 with Retry-After, not 500.
    const failure = await new UsersLookups([replica.url]).authTokenOwner('app1', 'boom').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UsersServiceUnavailableError);
    expect(isUnreachableError(failure)).toBe(true);
  });

  it('reads USERS_URL as comma-separated origins', () => {
    expect(usersOrigins(' http://a:1/, http://b:2 ,,')).toEqual(['http://a:1', 'http://b:2']);
    expect(() => new UsersLookups([])).toThrow(/USERS_URL/);
  });
});
