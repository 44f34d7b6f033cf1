import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RoleAccess } from '@chat/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeringRoleAccess } from './roleAccessRoute.js';

const access: RoleAccess = { role: 'moderator', permissions: { listUsers: 'deny' }, restrictedFeatures: ['x-feature'] };

describe('answeringRoleAccess', () => {
  let server: Server;
  let base = '';
  const asked: string[] = [];
  /** What the express app behind it saw (its answers are the route's usual ones). */
  const passed: string[] = [];
  const api: RequestListener = (req, res) => {
    passed.push(`${req.method} ${req.url}`);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"ERR_UID_NOT_FOUND"}}');
  };

  beforeAll(async () => {
    const roleAccess = (appId: string, uid: string) => {
      asked.push(`${appId}/${uid}`);
      if (uid === 'broken') return Promise.reject(new Error('store away'));
      return Promise.resolve(uid === 'u-1' || uid === 'a b' ? access : null);
    };
    server = createServer(answeringRoleAccess(roleAccess, api));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const get = async (path: string, method = 'GET') => {
    const response = await fetch(`${base}${path}`, { method });
    return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
  };

  it('answers a found user itself, with the ids decoded and the uid lower-cased as the route does', async () => {
    passed.length = 0;
    asked.length = 0;
    const found = await get('/internal/apps/app%201/users/U-1/access');
    expect(found).toEqual({ status: 200, type: 'application/json; charset=utf-8', body: JSON.stringify(access) });
    expect(JSON.parse(found.body)).toEqual(access);
    expect(await get('/internal/apps/app1/users/a%20b/access')).toMatchObject({ status: 200 });
    expect(asked).toEqual(['app 1/u-1', 'app1/a b']);
    expect(passed).toEqual([]);
  });

  it('passes everything else to the app: no such user, a failure, bad encoding, other spellings and paths', async () => {
    passed.length = 0;
    expect(await get('/internal/apps/app1/users/nobody/access')).toMatchObject({ status: 404 });
    await get('/internal/apps/app1/users/broken/access');
    await get('/internal/apps/app1/users/%E0%A4%A/access');
    await get('/internal/apps/app1/users/u-1/access/');
    await get('/internal/apps/app1/users/u-1/access?x=1');
    await get('/internal/apps/app1/users/u-1/access', 'POST');
    await get('/v3/users/u-1');
    expect(passed).toEqual([
      'GET /internal/apps/app1/users/nobody/access',
      'GET /internal/apps/app1/users/broken/access',
      'GET /internal/apps/app1/users/%E0%A4%A/access',
      'GET /internal/apps/app1/users/u-1/access/',
      'GET /internal/apps/app1/users/u-1/access?x=1',
      'POST /internal/apps/app1/users/u-1/access',
      'GET /v3/users/u-1',
    ]);
  });
});
