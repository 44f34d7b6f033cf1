import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { readBack } from './support/kafka.js';
import { done, sendMessage, sendWhenAllowed, text } from './support/messages.js';

let app: TestApp;

beforeAll(async () => {
  app = await createApp('messages manage');
  for (const uid of ['amy', 'bill', 'cleo', 'drew']) await createUser(app, uid, uid.toUpperCase());
});

async function send(from: string, to: string, words: string, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await sendMessage(app, from, text(to, words, 'user', extra));
  expect(response.status).toBe(200);
  return response.body.data;
}

describe('PUT /v3/messages/{id}', () => {
  it('the sender edits text, metadata and tags; the answer is an `edited` action about it', async () => {
    const m = await send('amy', 'bill', 'draft', { tags: ['old'] });
    const edited = await app.call('PUT', `/v3/messages/${m.id}`, { onBehalfOf: 'amy', body: { data: { text: 'final', metadata: { v: 2 } }, tags: ['new'] } });
    expect(edited.status).toBe(200);
    expect(edited.body.data).toMatchObject({
      category: 'action',
      type: 'message',
      sender: 'amy',
      receiver: 'bill',
      conversationId: 'amy_user_bill',
      data: {
        action: 'edited',
        entities: {
          by: { entityType: 'user', entity: { uid: 'amy' } },
          for: { entityType: 'user', entity: { uid: 'bill' } },
          on: { entityType: 'message', entity: { id: m.id, data: { text: 'final', metadata: { v: 2 } }, tags: ['new'], editedBy: 'amy' } },
        },
      },
    });
    expect(Number(edited.body.data.id)).toBeGreaterThan(Number(m.id));
    const got = (await app.call('GET', `/v3/messages/${m.id}`)).body.data;
    expect(got).toMatchObject({ data: { text: 'final', metadata: { v: 2 }, entities: { sender: { entity: { uid: 'amy' } } } }, tags: ['new'], editedBy: 'amy' });
    expect(got.editedAt).toBeGreaterThanOrEqual(got.sentAt);
    await readBack('chat.messages.events', (v) => v['type'] === 'MessageEdited' && (v['data'] as any).id === m.id && v['appId'] === app.appId);

    const byApp = await app.call('PUT', `/v3/messages/${m.id}`, { body: { data: { text: 'by the app' } } });
    expect(byApp.status).toBe(200);
    expect(byApp.body.data.data.entities.on.entity.editedBy).toBe('app_system');
  });

  it('refuses the receiver, outsiders, unknown ids and bad bodies', async () => {
    const m = await send('amy', 'bill', 'mine');
    const cases: [string | undefined, string, unknown, number, string][] = [
      ['bill', m.id, { data: { text: 'hijack' } }, 403, 'ERR_MESSAGE_NOT_A_SENDER'],
      ['cleo', m.id, { data: { text: 'hijack' } }, 403, 'ERR_MESSAGE_NO_ACCESS'],
      ['amy', '99999999', { data: { text: 'x' } }, 404, 'ERR_MESSAGE_ID_NOT_FOUND'],
      ['amy', 'abc', { data: { text: 'x' } }, 404, 'ERR_MESSAGE_ID_NOT_FOUND'],
      ['amy', m.id, { data: { text: 5 } }, 400, 'ERR_INVALID_MESSAGE_TEXT'],
      ['amy', m.id, { data: 'x' }, 400, 'ERR_INVALID_MESSAGE_DATA'],
      ['amy', m.id, {}, 400, 'ERR_INVALID_MESSAGE_DATA'],
      ['amy', m.id, { tags: 'x' }, 400, 'ERR_BAD_REQUEST'],
    ];
    for (const [onBehalfOf, id, body, status, code] of cases) {
      const response = await app.call('PUT', `/v3/messages/${id}`, { ...(onBehalfOf ? { onBehalfOf } : {}), body });
      expect([response.status, response.body.error?.code]).toEqual([status, code]);
    }
    expect((await app.call('GET', `/v3/messages/${m.id}`)).body.data.data.text).toBe('mine');
  });
});

describe('DELETE /v3/messages/{id}', () => {
  it('soft by default (deletedAt/deletedBy, still listed unless hidden), permanent on request', async () => {
    const soft = await send('amy', 'bill', 'oops');
    const hard = await send('amy', 'bill', 'gone for good');
    const refused = await app.call('DELETE', `/v3/messages/${soft.id}`, { onBehalfOf: 'bill' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('ERR_MESSAGE_NOT_A_SENDER');

    const deleted = await app.call('DELETE', `/v3/messages/${soft.id}`, { onBehalfOf: 'amy' });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ category: 'action', type: 'message', data: { action: 'deleted', entities: { on: { entity: { id: soft.id, deletedBy: 'amy' } } } } });
    const got = (await app.call('GET', `/v3/messages/${soft.id}`)).body.data;
    expect(got.deletedBy).toBe('amy');
    expect(got.deletedAt).toBeGreaterThanOrEqual(soft.sentAt);

    const all = (await app.call('GET', '/v3/users/bill/messages', { onBehalfOf: 'amy' })).body.data.map((m: any) => m.id);
    expect(all).toContain(soft.id);
    const hidden = (await app.call('GET', '/v3/users/bill/messages?hideDeleted=true', { onBehalfOf: 'amy' })).body.data.map((m: any) => m.id);
    expect(hidden).not.toContain(soft.id);
    const only = (await app.call('GET', '/v3/messages?onlyDeleted=true&limit=1000')).body.data.map((m: any) => m.id);
    expect(only).toEqual([soft.id]);

    const permanent = await app.call('DELETE', `/v3/messages/${hard.id}`, { body: { permanent: true } });
    expect(permanent.status).toBe(200);
    expect((await app.call('GET', `/v3/messages/${hard.id}`)).status).toBe(404);
    const published = await readBack('chat.messages.events', (v) => v['type'] === 'MessageDeleted' && (v['data'] as any).id === hard.id && v['appId'] === app.appId);
    expect(published.value['data']).toMatchObject({ permanent: true, deletedBy: 'app_system', sender: 'amy' });

    const badFlag = await app.call('DELETE', `/v3/messages/${soft.id}`, { body: { permanent: 'yes' } });
    expect(badFlag.status).toBe(400);
    const reacting = await app.call('POST', `/v3/messages/${soft.id}/reactions/👍`, { onBehalfOf: 'bill' });
    expect(reacting.status).toBe(400);
    expect(reacting.body.error.code).toBe('ERR_MESSAGE_ACTION_NOT_ALLOWED');
  });
});

describe('reactions', () => {
  it('add, list all, list one reaction’s users, remove; the summary is on the message', async () => {
    const m = await send('amy', 'bill', 'react to me');
    const thumbs = encodeURIComponent('👍');
    const first = await app.call('POST', `/v3/messages/${m.id}/reactions/${thumbs}`, { onBehalfOf: 'bill' });
    expect(first.status).toBe(200);
    expect(first.body.data.data.reactions).toEqual([{ reaction: '👍', count: 1, reactedByMe: true }]);
    await app.call('POST', `/v3/messages/${m.id}/reactions/${thumbs}`, { onBehalfOf: 'amy' });
    const again = await app.call('POST', `/v3/messages/${m.id}/reactions/${thumbs}`, { onBehalfOf: 'amy' });
    expect(again.body.data.data.reactions).toEqual([{ reaction: '👍', count: 2, reactedByMe: true }]);
    await app.call('POST', `/v3/messages/${m.id}/reactions/heart`, { onBehalfOf: 'amy' });

    const all = await app.call('GET', `/v3/messages/${m.id}/reactions`);
    expect(all.status).toBe(200);
    expect(all.body.data.map((r: any) => [r.reaction, r.uid])).toEqual([['👍', 'bill'], ['👍', 'amy'], ['heart', 'amy']]);
    expect(all.body.data[0]).toMatchObject({ messageId: m.id, reactedBy: { uid: 'bill', name: 'BILL' } });
    expect(all.body.meta.current.count).toBe(3);
    const one = await app.call('GET', `/v3/messages/${m.id}/reactions/${thumbs}`);
    expect(one.body.data.map((r: any) => r.uid)).toEqual(['bill', 'amy']);

    const removed = await app.call('DELETE', `/v3/messages/${m.id}/reactions/${thumbs}`, { onBehalfOf: 'bill' });
    expect(removed.status).toBe(200);
    expect(removed.body.data.data.reactions).toEqual([{ reaction: '👍', count: 1 }, { reaction: 'heart', count: 1 }]);
    const notThere = await app.call('DELETE', `/v3/messages/${m.id}/reactions/${thumbs}`, { onBehalfOf: 'bill' });
    expect(notThere.status).toBe(404);
    expect(notThere.body.error.code).toBe('ERR_REACTION_NOT_FOUND');
    const outsider = await app.call('POST', `/v3/messages/${m.id}/reactions/${thumbs}`, { onBehalfOf: 'cleo' });
    expect(outsider.status).toBe(403);
    expect(outsider.body.error.code).toBe('ERR_MESSAGE_NO_ACCESS');
    const noActor = await app.call('POST', `/v3/messages/${m.id}/reactions/${thumbs}`);
    expect(noActor.status).toBe(400);
    const tooLong = await app.call('POST', `/v3/messages/${m.id}/reactions/${'x'.repeat(101)}`, { onBehalfOf: 'bill' });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('ERR_INVALID_REACTION');
    const badEncoding = await app.call('POST', `/v3/messages/${m.id}/reactions/%E0%A4%A`, { onBehalfOf: 'bill' });
    expect(badEncoding.status).toBe(400);
    expect(badEncoding.body.error.code).toBe('ERR_BAD_REQUEST');
    const unknown = await app.call('GET', '/v3/messages/88888888/reactions');
    expect(unknown.status).toBe(404);
    expect((await app.call('GET', '/v3/messages?hasReactions=true&limit=1000')).body.data.map((x: any) => x.id)).toEqual([m.id]);
  });
});

describe('threads', () => {
  it('replies count on the parent, are listed under it and can be hidden from lists', async () => {
    const parent = await send('amy', 'bill', 'thread start');
    const reply = await app.call('POST', `/v3/messages/${parent.id}/thread`, { onBehalfOf: 'bill', body: text('amy', 'reply 1') });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ parentId: parent.id, conversationId: 'amy_user_bill', data: { text: 'reply 1' } });
    await app.call('POST', `/v3/messages/${parent.id}/thread`, { onBehalfOf: 'amy', body: text('bill', 'reply 2') });

    const listed = await app.call('GET', `/v3/messages/${parent.id}/thread`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((m: any) => m.data.text)).toEqual(['reply 1', 'reply 2']);
    expect(listed.body.meta).toMatchObject({ current: { limit: 100, count: 2 }, next: { affix: 'append' } });
    expect((await app.call('GET', `/v3/messages/${parent.id}`)).body.data.replyCount).toBe(2);
    const noReplies = (await app.call('GET', '/v3/users/bill/messages?hideReplies=true', { onBehalfOf: 'amy' })).body.data;
    expect(noReplies.some((m: any) => m.parentId)).toBe(false);

    const elsewhere = await app.call('POST', `/v3/messages/${parent.id}/thread`, { onBehalfOf: 'cleo', body: text('drew', 'wrong') });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.code).toBe('ERR_WRONG_MESSAGE_THREAD');
    const nested = await app.call('POST', `/v3/messages/${reply.body.data.id}/thread`, { onBehalfOf: 'amy', body: text('bill', 'deeper') });
    expect(nested.status).toBe(400);
    expect(nested.body.error.code).toBe('ERR_MESSAGE_THREAD_NESTING');
    const unknown = await app.call('POST', '/v3/messages/77777777/thread', { onBehalfOf: 'amy', body: text('bill', 'x') });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('ERR_MESSAGE_ID_NOT_FOUND');
    const outsiderList = await app.call('GET', `/v3/messages/${parent.id}/thread`, { onBehalfOf: 'cleo' });
    expect(outsiderList.status).toBe(403);
  });
});

describe('lists', () => {
  it('GET /users/{uid}/messages is the conversation between onBehalfOf and uid, paged, with cursors', async () => {
    await createUser(app, 'p1');
    await createUser(app, 'p2');
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await send(i % 2 ? 'p2' : 'p1', i % 2 ? 'p1' : 'p2', `c${i}`));
    await send('p1', 'amy', 'not in it');
    const page = await app.call('GET', '/v3/users/p2/messages?perPage=2&page=2', { onBehalfOf: 'p1' });
    expect(page.status).toBe(200);
    expect(page.body.data.map((m: any) => m.data.text)).toEqual(['c2', 'c3']);
    expect(page.body.meta.pagination).toEqual({ total: 5, count: 2, per_page: 2, current_page: 2, total_pages: 3 });
    expect(page.body.meta.cursor).toEqual({ id: Number(sent[3].id), affix: 'append', next: expect.any(String) });
    // The opaque cursor (docs/behaviour/pagination.md) goes on after c3, to the last page.
    const last = await app.call('GET', `/v3/users/p2/messages?perPage=2&cursor=${page.body.meta.cursor.next}`, { onBehalfOf: 'p1' });
    expect([last.body.data.map((m: any) => m.data.text), last.body.meta.cursor.next]).toEqual([['c4'], null]);
    const older = await app.call('GET', `/v3/users/p1/messages?id=${sent[3].id}&affix=prepend&limit=2`, { onBehalfOf: 'p2' });
    expect(older.body.data.map((m: any) => m.data.text)).toEqual(['c1', 'c2']);
    const newer = await app.call('GET', `/v3/users/p1/messages?id=${sent[1].id}&affix=append&perPage=10`, { onBehalfOf: 'p2' });
    expect(newer.body.data.map((m: any) => m.data.text)).toEqual(['c2', 'c3', 'c4']);
    const latest = await app.call('GET', '/v3/users/p1/messages?affix=prepend&perPage=2', { onBehalfOf: 'p2' });
    expect(latest.body.data.map((m: any) => m.data.text)).toEqual(['c3', 'c4']);

    // The app acting alone reads every one-on-one message of p1.
    const byApp = await app.call('GET', '/v3/users/p1/messages?perPage=100');
    expect(byApp.status).toBe(200);
    expect(byApp.body.data.length).toBeGreaterThanOrEqual(5);
    expect(byApp.body.data.every((m: any) => m.receiverType === 'user' && (m.sender === 'p1' || m.receiver === 'p1'))).toBe(true);
    const unknownPeer = await app.call('GET', '/v3/users/nobody/messages', { onBehalfOf: 'p1' });
    expect(unknownPeer.status).toBe(404);
    expect(unknownPeer.body.error.code).toBe('ERR_UID_NOT_FOUND');
  });

  it('GET /messages filters by sender, receiver, types, categories, tags, id/sentAt cursors and search; bad parameters are 400', async () => {
    await createUser(app, 'q1');
    await createUser(app, 'q2');
    const a = await send('q1', 'q2', 'apple pie', { tags: ['food'] });
    const b = await send('q2', 'q1', 'banana https://example.com');
    const c = (await sendMessage(app, 'q1', { receiver: 'q2', receiverType: 'user', category: 'custom', type: 'poll', data: { customData: { q: 1 } }, tags: ['vote'] })).body.data;
    const ids = (r: any) => r.body.data.map((m: any) => m.id);

    expect(ids(await app.call('GET', '/v3/messages?sender=q1&limit=1000'))).toEqual([a.id, c.id]);
    expect(ids(await app.call('GET', '/v3/messages?receiver=q1&limit=1000'))).toEqual([b.id]);
    expect(ids(await app.call('GET', '/v3/messages?sender=q1&categories=custom'))).toEqual([c.id]);
    expect(ids(await app.call('GET', '/v3/messages?sender=q1&types=text,poll'))).toEqual([a.id, c.id]);
    expect(ids(await app.call('GET', '/v3/messages?tags=food,vote&limit=1000'))).toEqual([a.id, c.id]);
    expect(ids(await app.call('GET', '/v3/messages?searchKey=APPLE'))).toEqual([a.id]);
    expect(ids(await app.call('GET', '/v3/messages?hasLinks=true&sender=q2'))).toEqual([b.id]);
    expect(ids(await app.call('GET', `/v3/messages?id=${a.id}&affix=append&limit=1&conversationId=q1_user_q2`))).toEqual([b.id]);
    const before = await app.call('GET', `/v3/messages?id=${c.id}&affix=prepend&limit=1&conversationId=q1_user_q2`);
    expect(ids(before)).toEqual([b.id]);
    expect(before.body.meta).toEqual({ current: { limit: 1, count: 1 }, next: { affix: 'prepend', sentAt: b.sentAt, id: b.id } });
    const fromTime = await app.call('GET', `/v3/messages?sentAt=${a.sentAt - 1}&affix=append&conversationId=q1_user_q2`);
    expect(ids(fromTime)).toEqual([a.id, b.id, c.id]);
    // On someone's behalf only their own conversations show.
    const mine = await app.call('GET', '/v3/messages?limit=1000', { onBehalfOf: 'q2' });
    expect(ids(mine)).toEqual([a.id, b.id, c.id]);

    for (const bad of ['limit=0', 'limit=abc', 'limit=5000', 'affix=sideways', 'hideDeleted=maybe', 'id=-3', 'receiverType=room']) {
      const response = await app.call('GET', `/v3/messages?${bad}`);
      expect([bad, response.status, response.body.error?.code]).toEqual([bad, 400, 'ERR_BAD_REQUEST']);
      expect(response.body.error.details.fields[0].field).toBe(bad.split('=')[0]);
    }
  });

  it('list-all on behalf of a group member includes the group conversation', async () => {
    await createUser(app, 'g1');
    await done(app.call('POST', '/v3/groups', { onBehalfOf: 'g1', body: { guid: 'gl', name: 'gl', type: 'public' } }));
    const sent = await sendWhenAllowed(app, 'g1', text('gl', 'group hello', 'group'));
    const seen = await eventually(
      () => app.call('GET', '/v3/messages?receiverType=group', { onBehalfOf: 'g1' }),
      (r) => r.status === 200 && r.body.data.some((m: any) => m.id === sent.body.data.id),
    );
    expect(seen.body.data.every((m: any) => m.receiver === 'gl')).toBe(true);
    const outsider = await app.call('GET', '/v3/messages?receiverType=group', { onBehalfOf: 'drew' });
    expect(outsider.body.data.some((m: any) => m.receiver === 'gl')).toBe(false);
  });
});
