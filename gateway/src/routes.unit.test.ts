import { routeCatalog } from '@chat/contracts';
import type { RouteSpec } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { RouteTable, externalPath } from './routes.js';

const spec = (method: RouteSpec['method'], path: string, operationId: string): RouteSpec => ({
  api: 'chat',
  method,
  path,
  operationId,
  service: 'conversations',
  scope: 'fullAccess',
  onBehalfOf: 'ignored',
  client: 'app',
});

describe('RouteTable', () => {
  const table = new RouteTable(routeCatalog);

  it('matches every catalog route by its own template, parameters filled in', () => {
    for (const route of routeCatalog) {
      const path = externalPath(route).replace(/:[^/]+/g, 'some-value');
      expect(table.match(route.method, path)?.operationId, `${route.method} ${path}`).toBe(route.operationId);
    }
  });

  it('matches the seed operation', () => {
    expect(table.match('DELETE', '/v3/users/cometchat-uid-2/conversation/pin')?.operationId).toBe('unpin-user-conversation');
  });

  it('prefers a static segment to a parameter', () => {
    expect(table.match('GET', '/v3/conversations/pinned')?.operationId).toBe('list-global-pinned-conversations');
  });

  it('backtracks to the parameter when the static branch leads nowhere', () => {
    const t = new RouteTable([spec('GET', '/a/pinned/x', 'static'), spec('GET', '/a/:id/y', 'param')]);
    expect(t.match('GET', '/v3/a/pinned/y')?.operationId).toBe('param');
    expect(t.match('GET', '/v3/a/pinned/x')?.operationId).toBe('static');
  });

  it('tolerates one trailing slash', () => {
    expect(table.match('GET', '/v3/users/')?.operationId).toBe('list-users');
    expect(table.match('GET', '/apps/')?.operationId).toBe('list-apps');
    expect(table.match('GET', '/v3/users//')).toBeUndefined();
  });

  it('rejects unknown paths, methods, empty and dot segments', () => {
    expect(table.match('GET', '/v3/nothing')).toBeUndefined();
    expect(table.match('PATCH', '/v3/users')).toBeUndefined();
    expect(table.match('BREW', '/v3/users')).toBeUndefined();
    expect(table.match('GET', '/v3//users')).toBeUndefined();
    expect(table.match('GET', '/v3/users/..')).toBeUndefined();
    expect(table.match('GET', '/v3/users/.')).toBeUndefined();
    expect(table.match('GET', '/')).toBeUndefined();
    expect(table.match('GET', '')).toBeUndefined();
    expect(table.match('GET', 'http://evil/v3/users')).toBeUndefined();
    expect(table.match('GET', '/users')).toBeUndefined();
    expect(table.match('GET', '/V3/USERS')).toBeUndefined();
    expect(table.match('GET', '/v3/users/a/b')).toBeUndefined();
  });

  it('keeps management routes at the root', () => {
    expect(table.match('POST', '/apps')?.api).toBe('management');
    expect(table.match('GET', '/apps/abc')?.operationId).toBe('get-app');
    expect(table.match('GET', '/v3/apps')).toBeUndefined();
  });

  it('refuses a catalog that declares a route twice', () => {
    expect(() => new RouteTable([spec('GET', '/a/:x', 'one'), spec('GET', '/a/:y', 'two')])).toThrow(/twice/);
  });
});
