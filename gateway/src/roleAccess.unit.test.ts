import { routeCatalog } from '@chat/contracts';
import type { RoleAccess, RouteSpec } from '@chat/contracts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ROLE_ACCESS_CACHE, ROLE_ACCESS_REFRESH, gatedUser, roleAccessCache, roleAccessId, usersRoleLookups } from './roleAccess.js';
import type { RoleLookups } from './roleAccess.js';

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

/** The users service in memory: each user's rules, and every request the cache made of it. */
function usersService() {
  const rules = new Map<string, RoleAccess>();
  const single: string[] = [];
  const batches: { appId: string; uids: string[] }[] = [];
  const lookups: RoleLookups = {
    load: (appId, uid) => {
      single.push(uid);
      return Promise.resolve(rules.get(`${appId}/${uid}`) ?? null);
    },
    loadMany: (appId, uids) => {
      batches.push({ appId, uids: [...uids] });
      return Promise.resolve(uids.map((uid) => rules.get(`${appId}/${uid}`) ?? null));
    },
  };
  return { rules, single, batches, lookups };
}

const plain: RoleAccess = { role: 'r', permissions: {}, restrictedFeatures: [] };
const restricted: RoleAccess = { ...plain, restrictedFeatures: ['u.listUsers'] };

describe('role access cache', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('serves a changed restriction within 1 s of the change, never the old one later', async () => {
    const users = usersService();
    const uids = Array.from({ length: 20 }, (_, i) => `u${i}`);
    for (const uid of uids) users.rules.set(`app/${uid}`, plain);
    const cache = roleAccessCache(users.lookups, () => {});
    for (const uid of uids) expect(await cache.get(roleAccessId('app', uid))).toEqual(plain);
    // Each user calls every 50 ms; the restriction comes at several points of the refresh cycle.
    const stale: number[] = [];
    for (const changeAfter of [0, 130, 260, 390, 520, 777]) {
      for (const uid of uids) users.rules.set(`app/${uid}`, plain);
      await vi.advanceTimersByTimeAsync(1_500);
      await vi.advanceTimersByTimeAsync(changeAfter);
      for (const uid of uids) users.rules.set(`app/${uid}`, restricted);
      const changedAt = Date.now();
      for (let step = 0; step < 40; step++) {
        for (const uid of uids) {
          const value = await cache.get(roleAccessId('app', uid));
          if (!value?.restrictedFeatures.length) stale.push(Date.now() - changedAt);
        }
        await vi.advanceTimersByTimeAsync(50);
      }
    }
    expect(stale.length).toBeGreaterThan(0); // a cache, not a pass-through…
    expect(Math.max(...stale)).toBeLessThan(ROLE_ACCESS_CACHE.maxAgeMs); // …never older than 1 s
    expect(users.single).toHaveLength(uids.length); // kept warm: nobody waited after the first call
  });

  it('gathers the refreshes of an app into one request, about two a second', async () => {
    const users = usersService();
    const apps = { a: 100, b: 30 };
    const ids: string[] = [];
    for (const [appId, count] of Object.entries(apps)) {
      for (let i = 0; i < count; i++) {
        users.rules.set(`${appId}/u${i}`, plain);
        ids.push(roleAccessId(appId, `u${i}`));
      }
    }
    const cache = roleAccessCache(users.lookups, () => {});
    await Promise.all(ids.map(async (id) => cache.get(id)));
    expect(users.single).toHaveLength(ids.length);
    // 10 s of calls, 200 a second spread over every user.
    for (let tick = 0; tick < 2_000; tick++) {
      expect(cache.get(ids[tick % ids.length]!)).toEqual(plain);
      await vi.advanceTimersByTimeAsync(5);
    }
    expect(users.single).toHaveLength(ids.length);
    for (const appId of Object.keys(apps)) {
      const ofApp = users.batches.filter((batch) => batch.appId === appId);
      expect(ofApp.length).toBeGreaterThanOrEqual(18);
      expect(ofApp.length).toBeLessThanOrEqual(21);
      expect(ofApp.every((batch) => batch.uids.length === apps[appId as keyof typeof apps])).toBe(true);
    }
  });

  it('keeps a user warm for 5 s after its last call, then lets it go cold', async () => {
    const users = usersService();
    users.rules.set('app/alice', plain);
    const cache = roleAccessCache(users.lookups, () => {});
    const id = roleAccessId('app', 'alice');
    await cache.get(id);
    await vi.advanceTimersByTimeAsync(ROLE_ACCESS_REFRESH.keepWarmMs - 600);
    expect(cache.get(id)).toEqual(plain);
    const refreshes = users.batches.length;
    expect(refreshes).toBeGreaterThanOrEqual(8);
    await vi.advanceTimersByTimeAsync(ROLE_ACCESS_REFRESH.keepWarmMs + 1_000);
    expect(users.batches.length - refreshes).toBeLessThanOrEqual(11);
    const quiet = users.batches.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(users.batches.length).toBe(quiet); // no timer, no request while nobody calls
    const cold = cache.get(id);
    expect(cold).toBeInstanceOf(Promise);
    expect(await cold).toEqual(plain);
    expect(users.single).toEqual(['alice', 'alice']);
  });

  it('reports a failed refresh once, and loads cold once the entries are 1 s old', async () => {
    const users = usersService();
    for (let i = 0; i < 10; i++) users.rules.set(`app/u${i}`, plain);
    const errors: string[] = [];
    const cache = roleAccessCache({ ...users.lookups, loadMany: () => Promise.reject(new Error('users down')) }, (_e, context) => errors.push(context));
    const ids = Array.from({ length: 10 }, (_, i) => roleAccessId('app', `u${i}`));
    await Promise.all(ids.map(async (id) => cache.get(id)));
    await vi.advanceTimersByTimeAsync(ROLE_ACCESS_REFRESH.everyMs);
    expect(errors).toEqual(['gathered refresh']);
    await vi.advanceTimersByTimeAsync(ROLE_ACCESS_CACHE.maxAgeMs - ROLE_ACCESS_REFRESH.everyMs);
    expect(cache.get(ids[0]!)).toBeInstanceOf(Promise);
  });
});

describe('usersRoleLookups', () => {
  it('asks for many uids of an app in requests of at most 500, answering in their order', async () => {
    const bodies: string[][] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const { uids } = JSON.parse(Buffer.concat(chunks).toString()) as { uids: string[] };
        bodies.push(uids);
        expect(req.url).toBe('/internal/apps/app%201/access');
        const access = uids.map((uid) => (uid.endsWith('7') ? null : { role: uid, permissions: {}, restrictedFeatures: [] }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access: uid0(uids) ? access.slice(1) : access }));
      });
    });
    // A batch whose first uid is `short` is answered one entry short: the look-up must reject it.
    const uid0 = (uids: string[]) => uids[0] === 'short';
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const lookups = usersRoleLookups(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 1_000);
    try {
      const uids = Array.from({ length: 1_200 }, (_, i) => `u${i}`);
      const answers = await lookups.loadMany('app 1', uids);
      expect(bodies.map((body) => body.length).sort()).toEqual([200, 500, 500]);
      expect(answers.map((access) => access?.role ?? null)).toEqual(uids.map((uid) => (uid.endsWith('7') ? null : uid)));
      await expect(lookups.loadMany('app 1', ['short', 'b'])).rejects.toThrow('users answered 1 role rules to 2 uids');
    } finally {
      await lookups.close();
      server.close();
    }
  });
});
