import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { readBack } from './support/kafka.js';

let app: TestApp;
const now = Math.floor(Date.now() / 1000);
const past = now - 86_400 * 30;

function usersBody(uids: string[], extra: Record<string, unknown> = {}) {
  return { users: Object.fromEntries(uids.map((uid, i) => [uid, { uid, name: uid.toUpperCase(), createdAt: past + i, ...extra }])) };
}

beforeAll(async () => {
  app = await createApp('data import');
});

describe('POST /v3/data_import/users', () => {
  it('imports users with their own ids and times, answers per record, and a rerun changes nothing', async () => {
    const body = {
      users: {
        ann: { uid: 'ann', name: 'Ann', createdAt: past, lastActiveAt: past + 10, metadata: { 'a.b': 1 }, tags: ['x'] },
        ben: { uid: 'ben', name: 'Ben', createdAt: past + 5, deactivatedAt: past + 50 },
        bad: { uid: 'bad', name: 'Bad', createdAt: now + 3_600 },
        'no name': { uid: 'no name' },
      },
    };
    const first = await app.call('POST', '/v3/data_import/users', { body });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body.data)).toEqual(['ann', 'ben', 'bad', 'no name']);
    expect(first.body.data.ann).toMatchObject({ success: true, data: { uid: 'ann', name: 'Ann', createdAt: past, lastActiveAt: past + 10, metadata: { 'a.b': 1 } } });
    expect(first.body.data.ben).toMatchObject({ success: true, data: { uid: 'ben', deactivatedAt: past + 50 } });
    expect(first.body.data.bad).toMatchObject({ success: false, error: { code: 'ERR_BAD_REQUEST' } });
    expect(first.body.data.bad.error.message).toContain('createdAt');
    expect(first.body.data['no name'].success).toBe(false);

    const got = await app.call('GET', '/v3/users/ann');
    expect(got.body.data).toMatchObject({ uid: 'ann', createdAt: past });
    const published = await readBack('chat.users.events', (v) => v['type'] === 'UserCreated' && v['appId'] === app.appId && (v['data'] as any).uid === 'ann');
    expect((published.value['data'] as any).imported).toBe(true);

    const again = await app.call('POST', '/v3/data_import/users', { body: { users: { ann: { uid: 'ann', name: 'Changed', createdAt: past } } } });
    expect(again.body.data.ann).toMatchObject({ success: true, data: { name: 'Ann' } });
    expect((await app.call('GET', '/v3/users/bad')).status).toBe(404);

    // A deleted user's uid stays taken: a rerun refuses that record and answers its neighbours as stored.
    expect((await app.call('DELETE', '/v3/users/ben')).status).toBe(200);
    const afterDelete = await eventually(
      () => app.call('POST', '/v3/data_import/users', { body: { users: { ben: { uid: 'ben', name: 'Ben' }, ann: { uid: 'ann', name: 'Ann' } } } }),
      (r) => r.body.data.ben.success === false,
    );
    expect(afterDelete.body.data.ben).toMatchObject({ success: false, error: { code: 'ERR_UID_ALREADY_EXISTS' } });
    expect(afterDelete.body.data.ann).toMatchObject({ success: true, data: { uid: 'ann', name: 'Ann', createdAt: past } });
  });

  it('lists imported users created before the app\'s own at once, in creation order, by page and by cursor (ADR 0142)', async () => {
    const own = await createApp('data import listing');
    for (const uid of ['newest-a', 'newest-b']) expect((await own.call('POST', '/v3/users', { body: { uid, name: uid } })).status).toBe(200);
    const uids = Array.from({ length: 300 }, (_, i) => `old${String(i).padStart(3, '0')}`);
    const request = (n: number) => ({ users: Object.fromEntries(uids.slice(n * 50, n * 50 + 50).map((uid, i) => [uid, { uid, name: uid, createdAt: past + n * 50 + i }])) });
    const uidsOf = (r: { body: { data: { uid: string }[] } }) => r.body.data.map((u) => u.uid);
    // The first request, then the list at once (no token, no wait): the import's users before the app's own.
    expect((await own.call('POST', '/v3/data_import/users', { body: request(0) })).status).toBe(200);
    expect(uidsOf(await own.call('GET', '/v3/users?perPage=100'))).toEqual([...uids.slice(0, 50), 'newest-a', 'newest-b']);
    // The rest with requests in flight at once, finishing in any order.
    await Promise.all([3, 1, 5, 2, 4].map(async (n) => expect((await own.call('POST', '/v3/data_import/users', { body: request(n) })).status).toBe(200)));
    const expected = [...uids, 'newest-a', 'newest-b'];
    const pages = [];
    for (let page = 1; page <= 4; page++) pages.push(await own.call('GET', `/v3/users?perPage=100&page=${page}`));
    expect(pages.flatMap(uidsOf)).toEqual(expected);
    expect(pages[3]?.body.meta.pagination).toMatchObject({ total: expected.length, count: 2, current_page: 4, total_pages: 4 });
    const walked: string[] = [];
    for (let path = '/v3/users?perPage=70'; ; ) {
      const listed = await own.call('GET', path);
      walked.push(...uidsOf(listed));
      const next = listed.body.meta.cursor?.next;
      if (!next || walked.length >= expected.length) break;
      path = `/v3/users?perPage=70&cursor=${encodeURIComponent(next)}`;
    }
    expect(walked).toEqual(expected);
  });

  it('refuses a request over 50 records or not shaped as a map of records, naming the limit, and writes nothing', async () => {
    const uids = Array.from({ length: 51 }, (_, i) => `over${i}`);
    const over = await app.call('POST', '/v3/data_import/users', { body: usersBody(uids) });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('ERR_IMPORT_TOO_MANY_RECORDS');
    expect(over.body.error.message).toContain('50');
    expect((await app.call('GET', '/v3/users/over0')).status).toBe(404);
    for (const users of [[{ uid: 'x', name: 'x' }], 'text', null]) {
      const refused = await app.call('POST', '/v3/data_import/users', { body: { users } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('ERR_IMPORT_INVALID_USER_FORMAT');
    }
  });
});

describe('POST /v3/data_import/messages', () => {
  it('imports one-on-one history in sentAt order with the caller’s muids, senders and read marks; a rerun is a no-op', async () => {
    await app.call('POST', '/v3/data_import/users', { body: usersBody(['mia', 'max', 'moe']) });
    const messages = {
      m2: { muid: 'm2', sender: 'max', receiverType: 'user', receiver: 'mia', type: 'text', data: { text: 'second' }, sentAt: past + 200, readAt: past + 300 },
      m1: { muid: 'm1', sender: 'mia', receiverType: 'user', receiver: 'max', type: 'text', data: { text: 'first' }, sentAt: past + 100 },
      m3: { muid: 'm3', sender: 'ghost', receiverType: 'user', receiver: 'mia', type: 'text', data: { text: 'who' }, sentAt: past + 300 },
      m4: { muid: 'm4', sender: 'moe', receiverType: 'user', receiver: 'mia', type: 'text', data: { text: 'late' }, sentAt: '1673421419' },
      m5: { muid: 'm5', sender: 'max', receiverType: 'user', receiver: 'mia', type: 'text', data: { text: 'unseen' }, sentAt: past + 400 },
    };
    const first = await app.call('POST', '/v3/data_import/messages', { body: { messages } });
    expect(first.status).toBe(200);
    const { m1, m2, m3, m4 } = first.body.data;
    expect(m1).toMatchObject({ success: true, data: { muid: 'm1', sender: 'mia', receiver: 'max', sentAt: past + 100, conversationId: 'max_user_mia' } });
    expect(m2).toMatchObject({ success: true, data: { sender: 'max', sentAt: past + 200, readAt: past + 300 } });
    expect(Number(m1.data.id)).toBeLessThan(Number(m2.data.id));
    expect(m3).toMatchObject({ success: false, error: { code: 'ERR_UID_NOT_FOUND' } });
    expect(m4).toMatchObject({ success: false, error: { code: 'ERR_BAD_REQUEST' } });

    const listed = await app.call('GET', '/v3/users/max/messages', { onBehalfOf: 'mia' });
    expect(listed.body.data.map((m: any) => m.muid)).toEqual(['m1', 'm2', 'm5']);
    const published = await readBack('chat.messages.events', (v) => v['type'] === 'MessageSent' && v['appId'] === app.appId && (v['data'] as any).muid === 'm1');
    expect((published.value['data'] as any).imported).toBe(true);

    // Mia read m2 (its readAt) but not m5; max never read m1.
    const conversation = await eventually(
      () => app.call('GET', '/v3/users/max/conversation', { onBehalfOf: 'mia' }),
      (r) => r.status === 200 && r.body.data?.lastMessage?.muid === 'm5' && r.body.data?.unreadMessageCount === '1',
    );
    expect(conversation.body.data).toMatchObject({ unreadMessageCount: '1', lastMessage: { muid: 'm5', sentAt: past + 400 } });
    const ofMax = await eventually(
      () => app.call('GET', '/v3/users/mia/conversation', { onBehalfOf: 'max' }),
      (r) => r.status === 200 && r.body.data?.lastMessage?.muid === 'm5',
    );
    expect(ofMax.body.data.unreadMessageCount).toBe('1');
    const marked = await readBack(
      'chat.conversations.events',
      (v) => v['type'] === 'ConversationRead' && v['appId'] === app.appId && (v['data'] as any).uid === 'mia',
    );
    expect(marked.value['data']).toMatchObject({ conversationId: 'max_user_mia', messageId: m2.data.id, readAt: past + 300 });

    const again = await app.call('POST', '/v3/data_import/messages', { body: { messages: { m1: messages.m1, m2: messages.m2 } } });
    expect(again.body.data.m1.data.id).toBe(m1.data.id);
    expect(again.body.data.m2.data.id).toBe(m2.data.id);
    const after = await app.call('GET', '/v3/users/max/messages', { onBehalfOf: 'mia' });
    expect(after.body.data).toHaveLength(3);
  });
});
