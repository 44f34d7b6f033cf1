import { beforeAll, describe, expect, it } from 'vitest';
import { call, converse, createApp, createUser, eventually, managementHeaders } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { done } from './support/messages.js';

/**
 * Cursor pagination through the gateway (beyond CometChat, docs/behaviour/pagination.md): every
 * page-numbered list is read page by page with `meta.cursor.next` while new items are added between
 * the pages, some of them earlier in the list's order than the page being read. A keyset cursor
 * never repeats an item nor skips one that was there all along; offset pages would repeat.
 */

let app: TestApp;

beforeAll(async () => {
  app = await createApp('cursor pages');
  for (const uid of ['owner', 'peer', 'fr-owner', 'bl-owner', 'tok-owner', 'cv-owner']) await createUser(app, uid);
  await done(app.call('POST', '/v3/groups', { body: { guid: 'roster', name: 'Roster', type: 'public', owner: 'owner' } }));
});

interface ListCase {
  /** The list's path, without the query string. */
  path: string;
  onBehalfOf?: string;
  management?: boolean;
  /** Filters sent with every page. */
  filters?: string;
  idOf: (item: any) => string;
  /** Adds the list's `i`th item (the first `SEEDED` before paging, then one after each page). */
  add: (i: number) => Promise<unknown>;
}

const SEEDED = 5;

function get(list: ListCase, query: string): Promise<ApiResponse> {
  const path = `${list.path}?${list.filters ? `${list.filters}&` : ''}${query}`;
  if (list.management) return call('GET', path, { headers: managementHeaders() });
  return app.call('GET', path, list.onBehalfOf !== undefined ? { onBehalfOf: list.onBehalfOf } : {});
}

async function whole(list: ListCase): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const r = await get(list, `perPage=100&page=${page}`);
    expect(r.status).toBe(200);
    ids.push(...(r.body.data as any[]).map(list.idOf));
    // Thread replies answer CometChat's message meta, without page counts.
    const pages = r.body.meta.pagination?.total_pages as number | undefined;
    if (pages === undefined ? r.body.data.length < 100 : page >= pages) return ids;
  }
}

/** Pages through with the cursor, adding an item after every page; the ids in the order read. */
async function pageThrough(list: ListCase): Promise<{ read: string[]; added: number }> {
  const read: string[] = [];
  let added = 0;
  let query = `perPage=${2}`;
  for (let pages = 0; pages < 500; pages++) {
    const r = await get(list, query);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    read.push(...(r.body.data as any[]).map(list.idOf));
    const next = r.body.meta.cursor?.next;
    expect(next === null || typeof next === 'string').toBe(true);
    if (next === null) return { read, added };
    await list.add(SEEDED + added++);
    query = `perPage=${2}&cursor=${encodeURIComponent(next)}`;
  }
  throw new Error('the cursor never reached the last page');
}

async function checkList(list: ListCase): Promise<void> {
  for (let i = 0; i < SEEDED; i++) await list.add(i);
  const before = await eventually(
    () => whole(list),
    (ids) => ids.length >= SEEDED,
  );
  const { read, added } = await pageThrough(list);
  expect(added).toBeGreaterThan(0);
  const after = await eventually(
    () => whole(list),
    (ids) => ids.length >= before.length + added,
  );
  // No repeats, no item that was there all along left out, and the list's own order.
  expect(read.length).toBe(new Set(read).size);
  expect(before.filter((id) => !read.includes(id))).toEqual([]);
  expect(read).toEqual(after.filter((id) => read.includes(id)));
}

const sendThread = (parentId: string, from: string, words: string) =>
  done(app.call('POST', `/v3/messages/${parentId}/thread`, { onBehalfOf: from, body: { category: 'message', type: 'text', data: { text: words } } }));

describe('paging with meta.cursor.next while items are added', () => {
  it('users (new users come last)', async () => {
    await checkList({ path: '/v3/users', idOf: (u) => u.uid, add: (i) => createUser(app, `cu-${i}`) });
  });

  it('groups by name (new groups sort first)', async () => {
    await checkList({
      path: '/v3/groups',
      idOf: (g) => g.guid,
      add: (i) => done(app.call('POST', '/v3/groups', { body: { guid: `cg-${i}`, name: `${i < SEEDED ? 'm' : 'a'}-${i}`, type: 'public', owner: 'owner' } })),
    });
  });

  it('group members', async () => {
    await checkList({
      path: '/v3/groups/roster/members',
      idOf: (m) => m.uid,
      add: async (i) => {
        await createUser(app, `mem-${i}`);
        return done(app.call('POST', '/v3/groups/roster/members', { body: { participants: [`mem-${i}`] } }));
      },
    });
  });

  it('banned users', async () => {
    await checkList({
      path: '/v3/groups/roster/bannedusers',
      idOf: (b) => b.uid,
      add: async (i) => {
        await createUser(app, `ban-${i}`);
        return done(app.call('POST', `/v3/groups/roster/bannedusers/ban-${i}`));
      },
    });
  });

  it('friends by name (new friends sort first)', async () => {
    await checkList({
      path: '/v3/users/fr-owner/friends',
      idOf: (u) => u.uid,
      add: async (i) => {
        await createUser(app, `fr-${i}`, `${i < SEEDED ? 'm' : 'a'} friend ${i}`);
        return done(app.call('POST', '/v3/users/fr-owner/friends', { body: { accepted: [`fr-${i}`] } }));
      },
    });
  });

  it('blocked users', async () => {
    await checkList({
      path: '/v3/users/bl-owner/blockedusers',
      idOf: (u) => u.uid,
      add: async (i) => {
        await createUser(app, `bl-${i}`);
        return done(app.call('POST', '/v3/users/bl-owner/blockedusers', { body: { blockedUids: [`bl-${i}`] } }));
      },
    });
  });

  it('roles (new roles sort first)', async () => {
    await checkList({
      path: '/v3/roles',
      idOf: (r) => r.role,
      add: (i) => done(app.call('POST', '/v3/roles', { body: { role: `${i < SEEDED ? 'm' : 'a'}-role-${i}`, name: `Role ${i}` } })),
    });
  });

  it('auth tokens', async () => {
    await checkList({
      path: '/v3/users/tok-owner/auth_tokens',
      idOf: (t) => t.authToken,
      add: () => done(app.call('POST', '/v3/users/tok-owner/auth_tokens', { body: {} })),
    });
  });

  it('API keys (newest first: new keys come before the cursor)', async () => {
    await checkList({
      path: '/v3/apikeys',
      idOf: (k) => k.keyId,
      add: (i) => done(app.call('POST', '/v3/apikeys', { body: { name: `key ${i}`, scope: 'authOnly' } })),
    });
  });

  it("a user's conversations (newest first)", async () => {
    await checkList({
      path: '/v3/conversations',
      onBehalfOf: 'cv-owner',
      idOf: (c) => c.conversationId,
      add: async (i) => {
        await createUser(app, `cv-${i}`);
        return done(converse(app, 'cv-owner', `cv-${i}`, `hello ${i}`));
      },
    });
  });

  it("the app's conversations (newest first)", async () => {
    await checkList({
      path: '/v3/conversations',
      idOf: (c) => c.conversationId,
      add: async (i) => {
        await createUser(app, `ac-${i}`);
        return done(converse(app, 'owner', `ac-${i}`, `hi ${i}`));
      },
    });
  });

  it('thread replies', async () => {
    const parent = (await done(converse(app, 'owner', 'peer', 'thread parent'))).body.data.id as string;
    await checkList({ path: `/v3/messages/${parent}/thread`, idOf: (m) => String(m.id), add: (i) => sendThread(parent, 'peer', `reply ${i}`) });
  });

  it("a user's messages with another user", async () => {
    await checkList({
      path: '/v3/users/tok-owner/messages',
      onBehalfOf: 'peer',
      idOf: (m) => String(m.id),
      add: (i) => done(converse(app, 'peer', 'tok-owner', `message ${i}`)),
    });
  });

  it('apps (management API, newest first)', async () => {
    await checkList({ path: '/apps', management: true, filters: 'searchKey=cursor%20app%20', idOf: (a) => a.id, add: (i) => createApp(`cursor app ${i}`) });
  });
});

describe('cursors that do not belong', () => {
  it('a malformed cursor, one of another list and one of other filters are 400s naming cursor', async () => {
    const users = await app.call('GET', '/v3/users?perPage=1');
    const next = users.body.meta.cursor.next as string;
    expect(typeof next).toBe('string');
    const attempts = [
      await app.call('GET', '/v3/users?cursor=not*a*cursor'),
      await app.call('GET', `/v3/users?cursor=${Buffer.from('{"s":"x"}').toString('base64url')}`),
      await app.call('GET', `/v3/roles?cursor=${next}`),
      await app.call('GET', `/v3/users?searchKey=cu&cursor=${next}`),
      await app.call('GET', `/v3/users/owner/friends?cursor=${next}`),
    ];
    expect(attempts.map((r) => `${r.status} ${r.body.error.code} ${String(r.body.error.message).startsWith('cursor:')}`)).toEqual(
      attempts.map(() => '400 ERR_BAD_REQUEST true'),
    );
    // The same cursor with the same filters, and another perPage, goes on.
    const on = await app.call('GET', `/v3/users?perPage=3&cursor=${next}`);
    expect([on.status, on.body.meta.pagination.current_page]).toEqual([200, 2]);
    expect(on.body.data[0].uid).not.toBe(users.body.data[0].uid);
  });
});
