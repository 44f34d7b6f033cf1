import { beforeAll, describe, expect, it } from 'vitest';
import { converse, createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { expectError } from './support/groups.js';
import { done, sendMessage, text } from './support/messages.js';

let app: TestApp;
/** amy → bill, oldest first: the first came through `converse`, so the conversation exists for both. */
let ids: string[];
let mention: string;

const idsOf = (body: { data: { id: string }[] }) => body.data.map((m) => m.id);

beforeAll(async () => {
  app = await createApp('message filters');
  for (const uid of ['amy', 'bill']) await createUser(app, uid);
  await done(app.call('POST', '/v3/users', { body: { uid: 'cleo', name: 'Cleo', tags: ['vip'] } }));
  const first = (await converse(app, 'amy', 'bill', 'one')).body.data.id as string;
  ids = [first];
  for (const words of ['two', 'three']) ids.push((await done(sendMessage(app, 'amy', text('bill', words)))).body.data.id);
  mention = (await done(sendMessage(app, 'amy', text('bill', 'ask <@uid:cleo>')))).body.data.id;
  ids.push(mention);
  // bill reads the first message and receives up to the second one.
  await done(app.call('POST', '/v3/users/amy/conversation/read', { onBehalfOf: 'bill', body: { messageId: ids[0] } }));
  await done(app.call('POST', '/v3/users/amy/conversation/delivered', { onBehalfOf: 'bill', body: { messageId: ids[1] } }));
  await done(app.call('POST', '/v3/users/bill/blockedusers', { body: { blockedUids: ['cleo'] } }));
});

describe('read and delivery filters', () => {
  it('unread=true lists what the viewer has not read, on the conversation list and on GET /messages', async () => {
    const want = ids.slice(1);
    const conversation = await eventually(
      () => app.call('GET', '/v3/users/amy/messages?unread=true', { onBehalfOf: 'bill' }),
      (r) => r.status === 200 && idsOf(r.body).join() === want.join(),
    );
    expect(idsOf(conversation.body)).toEqual(want);
    const everywhere = await app.call('GET', '/v3/messages?unread=true', { onBehalfOf: 'bill' });
    expect(idsOf(everywhere.body)).toEqual(want);
    // The sender has read nothing of their own: their own messages are never unread.
    const sender = await app.call('GET', '/v3/users/bill/messages?unread=true', { onBehalfOf: 'amy' });
    expect(idsOf(sender.body)).toEqual([]);
    const all = await app.call('GET', '/v3/users/amy/messages', { onBehalfOf: 'bill' });
    expect(idsOf(all.body)).toEqual(ids);
  });

  it('undelivered=true lists what has not reached the viewer', async () => {
    const want = ids.slice(2);
    const r = await eventually(
      () => app.call('GET', '/v3/users/amy/messages?undelivered=true', { onBehalfOf: 'bill' }),
      (x) => x.status === 200 && idsOf(x.body).join() === want.join(),
    );
    expect(idsOf(r.body)).toEqual(want);
  });

  it('a viewer-only filter without onBehalfOf is refused, not ignored', async () => {
    expectError(await app.call('GET', '/v3/messages?unread=true'), 400, 'ERR_BAD_REQUEST', 'unread');
    expectError(await app.call('GET', '/v3/messages?myMentionsOnly=true'), 400, 'ERR_BAD_REQUEST', 'myMentionsOnly');
  });
});

describe('mention filters', () => {
  it('mentionedUids keeps messages that mention one of the users', async () => {
    const r = await app.call('GET', '/v3/users/bill/messages?mentionedUids=cleo,nobody', { onBehalfOf: 'amy' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(idsOf(r.body)).toEqual([mention]);
    const none = await app.call('GET', '/v3/users/bill/messages?mentionedUids=nobody', { onBehalfOf: 'amy' });
    expect(idsOf(none.body)).toEqual([]);
  });

  it('mentionsWithTagInfo adds the mentioned users’ tags; mentionsWithBlockedInfo their block relations to the viewer', async () => {
    const plain = await app.call('GET', '/v3/users/amy/messages?mentionedUids=cleo', { onBehalfOf: 'bill' });
    expect(plain.body.data[0].mentionedUsers[0]).not.toHaveProperty('tags');
    const tagged = await app.call('GET', '/v3/users/amy/messages?mentionedUids=cleo&mentionsWithTagInfo=true', { onBehalfOf: 'bill' });
    expect(tagged.body.data[0].mentionedUsers[0]).toMatchObject({ uid: 'cleo', tags: ['vip'] });
    const blocked = await eventually(
      () => app.call('GET', '/v3/users/amy/messages?mentionedUids=cleo&mentionsWithBlockedInfo=true', { onBehalfOf: 'bill' }),
      (r) => r.body.data?.[0]?.mentionedUsers?.[0]?.blockedByMe === true,
    );
    expect(blocked.body.data[0].mentionedUsers[0]).toMatchObject({ uid: 'cleo', blockedByMe: true, hasBlockedMe: false });
    const asAmy = await app.call('GET', '/v3/messages?mentionedUids=cleo&mentionsWithBlockedInfo=true', { onBehalfOf: 'amy' });
    expect(asAmy.body.data[0].mentionedUsers[0]).toMatchObject({ blockedByMe: false, hasBlockedMe: false });
  });
});

describe('count and strict parameters', () => {
  it('count=true adds how many messages match in all', async () => {
    const r = await app.call('GET', '/v3/messages?count=true&limit=1');
    expect(r.body.data).toHaveLength(1);
    expect(r.body.meta.current).toMatchObject({ limit: 1, count: 1, total: ids.length });
  });

  it('a wrong type or an unknown parameter is a 400 naming it', async () => {
    expectError(await app.call('GET', '/v3/users/amy/messages?unread=maybe', { onBehalfOf: 'bill' }), 400, 'ERR_BAD_REQUEST', 'unread');
    expectError(await app.call('GET', '/v3/groups/nogroup/messages?mentionedUids=not%20a%20uid'), 400, 'ERR_BAD_REQUEST', 'mentionedUids');
    expectError(await app.call('GET', '/v3/messages?unred=true'), 400, 'ERR_BAD_REQUEST', 'unred');
    // A conversation's own list cannot be narrowed to another conversation.
    expectError(await app.call('GET', '/v3/users/amy/messages?conversationId=x', { onBehalfOf: 'bill' }), 400, 'ERR_BAD_REQUEST', 'conversationId');
  });
});
