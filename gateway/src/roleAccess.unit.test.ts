import { routeCatalog } from '@chat/contracts';
import type { RoleAccess, RouteSpec } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { ROLE_ACCESS_CACHE, gatedUser, roleAccessCache, roleAccessId } from './roleAccess.js';

function route(operationId: string): RouteSpec {
  const found = routeCatalog.find((r) => r.operationId === operationId);
  if (!found) throw new Error(operationId);
  return found;
}

describe('gatedUser', () => {
  it('gates on the forwarded acting user where the catalogue forwards one', () => {
    expect(gatedUser(route('send-message'), 'alice', 'alice')).toBe('alice');
    expect(gatedUser(route('get-user'), undefined, undefined)).toBeUndefined();
  });

  it('reads the header, for the gate only, on a gated operation the app runs', () => {
    for (const operationId of ['list-users', 'list-all-friends', 'block-users', 'list-blocked-users', 'list-group-members']) {
      expect(route(operationId).onBehalfOf).toBe('ignored');
      expect(gatedUser(route(operationId), undefined, 'alice')).toBe('alice');
      expect(gatedUser(route(operationId), undefined, undefined)).toBeUndefined();
      expect(gatedUser(route(operationId), undefined, '')).toBeUndefined();
    }
  });

  it('leaves ungated app-run operations to the app', () => {
    expect(gatedUser(route('create-user'), undefined, 'alice')).toBeUndefined();
    expect(gatedUser(route('list-roles'), undefined, 'alice')).toBeUndefined();
  });
});

describe('role access cache', () => {
  it('serves a changed restriction within 1 s of the change, never the old one later', async () => {
    let now = 0;
    let current: RoleAccess = { role: 'r', permissions: {}, restrictedFeatures: [] };
    const cache = roleAccessCache(() => Promise.resolve(current), () => {}, () => now);
    const id = roleAccessId('app', 'alice');
    expect(await cache.get(id)).toEqual(current);
    // Restricted right after the first look-up: every later read at or past 1 s must see it.
    current = { ...current, restrictedFeatures: ['u.listUsers'] };
    const served: { at: number; restricted: boolean }[] = [];
    for (now = 0; now <= 3_000; now += 50) {
      const value = await cache.get(id);
      served.push({ at: now, restricted: value?.restrictedFeatures.includes('u.listUsers') ?? false });
    }
    const stale = served.filter((read) => !read.restricted);
    expect(stale.length).toBeGreaterThan(0); // a cache, not a pass-through…
    expect(Math.max(...stale.map((read) => read.at))).toBeLessThan(ROLE_ACCESS_CACHE.maxAgeMs); // …never older than 1 s
  });
});
