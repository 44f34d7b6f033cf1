import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { expectError } from './support/groups.js';
import { readBack } from './support/kafka.js';
import { done, sendMessage, sendWhenAllowed, text } from './support/messages.js';

// CometChat's newer operations (ADR 0053): saved messages, interactions, thread subscriptions and the
// thread inbox, and the BYO agents' get-one-tool read.
let app: TestApp;

beforeAll(async () => {
  app = await createApp('saved and threads');
  for (const uid of ['amy', 'bill', 'cleo', 'dan']) await createUser(app, uid);
});

async function send(from: string, to: string, words: string, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await sendWhenAllowed(app, from, text(to, words, 'user', extra));
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

async function reply(from: string, parentId: string, words: string, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await app.call('POST', `/v3/messages/${parentId}/thread`, { onBehalfOf: from, body: { type: 'text', data: { text: words }, ...extra } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

const savedList = (uid: string, query = 'saved=true') => app.call('GET', `/v3/messages?${query}`, { onBehalfOf: uid });
const threadsOf = (uid: string | undefined, query = '') => app.call('GET', `/v3/threads${query}`, uid !== undefined ? { onBehalfOf: uid } : {});
const threadIds = (response: { body: { data: Array<{ parentMessageId: string }> } }) => response.body.data.map((t) => t.parentMessageId);

describe('saving messages', () => {
  it('a participant saves and unsaves a message; the saved list is theirs alone, newest save first', async () => {
    const first = await send('amy', 'bill', 'keep this');
    const second = await send('bill', 'amy', 'and this');
    const saved = await app.call('POST', `/v3/messages/${first.id}/save`, { onBehalfOf: 'bill' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data).toMatchObject({ id: first.id, conversationId: 'amy_user_bill', data: { text: 'keep this' } });
    expect(saved.body.data.savedAt).toBeGreaterThanOrEqual(first.sentAt);
    await done(app.call('POST', `/v3/messages/${second.id}/save`, { onBehalfOf: 'bill' }));
    // Saving again succeeds and moves it to the top (re-stamped).
    await done(app.call('POST', `/v3/messages/${first.id}/save`, { onBehalfOf: 'bill' }));
    const list = await savedList('bill');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.data.map((m: any) => m.id)).toEqual([first.id, second.id]);
    expect(list.body.data.every((m: any) => typeof m.savedAt === 'number')).toBe(true);
    expect(list.body.meta.current).toEqual({ limit: 100, count: 2 });
    expect((await savedList('amy')).body.data).toEqual([]);
    await readBack('chat.messages.events', (v) => v['type'] === 'MessageSaved' && v['appId'] === app.appId && (v['data'] as any).id === second.id && (v['data'] as any).uid === 'bill');

    const unsaved = await app.call('DELETE', `/v3/messages/${first.id}/save`, { onBehalfOf: 'bill' });
    expect(unsaved.status).toBe(200);
    expect(unsaved.body.data.id).toBe(first.id);
    expect(unsaved.body.data.savedAt).toBeUndefined();
    expect((await savedList('bill')).body.data.map((m: any) => m.id)).toEqual([second.id]);
    // Unsaving what is not saved changes nothing.
    await done(app.call('DELETE', `/v3/messages/${first.id}/save`, { onBehalfOf: 'bill' }));
    expect((await savedList('bill', 'saved=true&limit=1')).body.data.map((m: any) => m.id)).toEqual([second.id]);
  });

  it('refuses outsiders, unknown ids, a missing onBehalfOf and filters the saved list cannot take', async () => {
    const m = await send('amy', 'bill', 'private');
    expectError(await app.call('POST', `/v3/messages/${m.id}/save`, { onBehalfOf: 'cleo' }), 403, 'ERR_MESSAGE_NO_ACCESS');
    expectError(await app.call('POST', '/v3/messages/99999999/save', { onBehalfOf: 'bill' }), 404, 'ERR_MESSAGE_ID_NOT_FOUND');
    expectError(await app.call('DELETE', '/v3/messages/abc/save', { onBehalfOf: 'bill' }), 404, 'ERR_MESSAGE_ID_NOT_FOUND');
    expectError(await app.call('POST', `/v3/messages/${m.id}/save`), 400, 'ERR_EMPTY_ON_BEHALF_OF');
    expectError(await savedList('bill', 'saved=true&hideDeleted=true'), 400, 'ERR_BAD_REQUEST', 'hideDeleted');
    expectError(await savedList('bill', 'saved=false'), 400, 'ERR_BAD_REQUEST', 'saved');
    expectError(await savedList('bill', 'saved=true&limit=101'), 400, 'ERR_BAD_REQUEST', 'limit');
    expectError(await app.call('GET', '/v3/messages?saved=true'), 400, 'ERR_EMPTY_ON_BEHALF_OF');
    // The other lists are untouched by the saved list's route.
    expect((await app.call('GET', '/v3/messages?limit=1', { onBehalfOf: 'bill' })).status).toBe(200);
  });

  it('a user keeps at most 100 saved messages', async () => {
    const ids: string[] = [];
    for (let batch = 0; batch < 21; batch++) {
      const sent = await Promise.all(Array.from({ length: 5 }, (_, i) => sendMessage(app, 'cleo', text('dan', `m${batch}-${i}`))));
      for (const response of sent) ids.push(response.body.data.id);
    }
    for (let i = 0; i < 100; i += 5) {
      const answers = await Promise.all(ids.slice(i, i + 5).map((id) => app.call('POST', `/v3/messages/${id}/save`, { onBehalfOf: 'dan' })));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    }
    const over = await app.call('POST', `/v3/messages/${ids[100]}/save`, { onBehalfOf: 'dan' });
    expectError(over, 400, 'ERR_SAVED_MESSAGES_LIMIT_EXCEEDED', '100');
    // Re-saving one already saved is not a new save; after an unsave there is room again.
    await done(app.call('POST', `/v3/messages/${ids[0]}/save`, { onBehalfOf: 'dan' }));
    await done(app.call('DELETE', `/v3/messages/${ids[1]}/save`, { onBehalfOf: 'dan' }));
    await done(app.call('POST', `/v3/messages/${ids[100]}/save`, { onBehalfOf: 'dan' }));
    const list = await savedList('dan');
    expect(list.body.data).toHaveLength(100);
    expect(list.body.data[0].id).toBe(ids[100]);
    expect(list.body.data.map((m: any) => m.id)).not.toContain(ids[1]);
  });
});

describe('PATCH /messages/{id}/interacted', () => {
  it('marks elements once each and answers with what the user has marked', async () => {
    const form = await send('amy', 'bill', 'pick one', { metadata: { form: ['ok', 'later'] } });
    const first = await app.call('PATCH', `/v3/messages/${form.id}/interacted`, { onBehalfOf: 'bill', body: { interactions: ['ok'] } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ success: true, interactions: [{ elementId: 'ok' }] });
    expect(first.body.data.message).toContain(form.id);
    const second = await done(app.call('PATCH', `/v3/messages/${form.id}/interacted`, { onBehalfOf: 'bill', body: { interactions: ['ok', 'later'] } }));
    expect(second.body.data.interactions.map((i: any) => i.elementId)).toEqual(['ok', 'later']);
    // Another user's interactions are theirs.
    const amys = await done(app.call('PATCH', `/v3/messages/${form.id}/interacted`, { onBehalfOf: 'amy', body: { interactions: ['later'] } }));
    expect(amys.body.data.interactions.map((i: any) => i.elementId)).toEqual(['later']);
    const event = await readBack('chat.messages.events', (v) => v['type'] === 'MessageInteracted' && v['appId'] === app.appId && (v['data'] as any).uid === 'bill' && (v['data'] as any).elementIds.includes('later'));
    expect((event.value['data'] as any).elementIds).toEqual(['later']);
  });

  it('refuses bad bodies, outsiders and unknown ids', async () => {
    const m = await send('amy', 'bill', 'card');
    const patch = (body: unknown, onBehalfOf = 'bill', id = m.id) => app.call('PATCH', `/v3/messages/${id}/interacted`, { onBehalfOf, body });
    expectError(await patch({}), 400, 'ERR_BAD_REQUEST', 'interactions');
    expectError(await patch({ interactions: [] }), 400, 'ERR_BAD_REQUEST', 'interactions');
    expectError(await patch({ interactions: 'ok' }), 400, 'ERR_BAD_REQUEST', 'interactions');
    expectError(await patch({ interactions: [''] }), 400, 'ERR_BAD_REQUEST', 'interactions');
    expectError(await patch({ interactions: ['ok'] }, 'cleo'), 403, 'ERR_MESSAGE_NO_ACCESS');
    expectError(await patch({ interactions: ['ok'] }, 'bill', '99999999'), 404, 'ERR_MESSAGE_ID_NOT_FOUND');
  });
});

describe('thread subscriptions and GET /threads', () => {
  it('the sender and repliers follow a thread; unsubscribing leaves it until a mention brings the user back', async () => {
    const parent = await send('amy', 'bill', 'thread starter');
    const quiet = await send('amy', 'bill', 'no replies yet');
    const first = await reply('bill', parent.id, 'first reply');
    for (const uid of ['amy', 'bill']) {
      const inbox = await threadsOf(uid);
      expect(inbox.status, JSON.stringify(inbox.body)).toBe(200);
      expect(threadIds(inbox)).toContain(parent.id);
      expect(threadIds(inbox)).not.toContain(quiet.id);
    }
    const row = (await threadsOf('amy')).body.data.find((t: any) => t.parentMessageId === parent.id);
    expect(row).toMatchObject({
      parentMessage: { id: parent.id, replyCount: 1 },
      replyCount: 1,
      lastReply: { id: first.id, parentId: parent.id },
      subscribed: true,
      conversationId: 'amy_user_bill',
      receiverType: 'user',
      receiverId: 'bill',
    });
    expect(threadIds(await threadsOf('cleo'))).toEqual([]);

    const left = await app.call('DELETE', `/v3/messages/${parent.id}/thread/subscription`, { onBehalfOf: 'amy' });
    expect(left.status, JSON.stringify(left.body)).toBe(200);
    expect(left.body.data.success).toBe(true);
    expect(threadIds(await threadsOf('amy'))).not.toContain(parent.id);
    await reply('bill', parent.id, 'still here');
    expect(threadIds(await threadsOf('amy'))).not.toContain(parent.id);
    await reply('bill', parent.id, 'hey <@uid:amy>');
    expect(threadIds(await eventually(() => threadsOf('amy'), (r) => threadIds(r).includes(parent.id)))).toContain(parent.id);
    await readBack('chat.messages.events', (v) => v['type'] === 'ThreadUnsubscribed' && v['appId'] === app.appId && (v['data'] as any).parentId === parent.id);

    // A thread with no replies yet can be followed too.
    await done(app.call('POST', `/v3/messages/${quiet.id}/thread/subscription`, { onBehalfOf: 'bill' }));
    const billsInbox = await threadsOf('bill');
    expect(billsInbox.body.data.find((t: any) => t.parentMessageId === quiet.id)).toMatchObject({ replyCount: 0, subscribed: true, receiverId: 'amy' });
    expect(billsInbox.body.data.find((t: any) => t.parentMessageId === quiet.id).lastReply).toBeUndefined();
  });

  it('lists the app’s threads without onBehalfOf, narrowed by conversation and paged', async () => {
    const cleosThread = await send('cleo', 'dan', 'a thread dan does not follow');
    await reply('cleo', cleosThread.id, 'talking to myself');
    await createUser(app, 'eve');
    await done(app.call('POST', '/v3/groups', { body: { guid: 'reading-club', name: 'Reading club', type: 'public', owner: 'eve' } }));
    await done(app.call('POST', '/v3/groups/reading-club/members', { onBehalfOf: 'eve', body: { participants: ['amy'] } }));
    const groupParent = (await sendWhenAllowed(app, 'eve', text('reading-club', 'chapter one', 'group'))).body.data;
    await eventually(() => app.call('POST', `/v3/messages/${groupParent.id}/thread`, { onBehalfOf: 'amy', body: { type: 'text', data: { text: 'loved it' } } }), (r) => r.status === 200);
    const all = await eventually(() => threadsOf(undefined, '?limit=100'), (r) => threadIds(r).includes(groupParent.id));
    expect(all.body.data.every((t: any) => t.replyCount > 0 && t.subscribed === undefined)).toBe(true);
    const ids = threadIds(all).map(Number);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(threadIds(await threadsOf(undefined, '?guid=reading-club'))).toEqual([groupParent.id]);
    const evesGroup = await threadsOf('eve', '?guid=reading-club');
    expect(evesGroup.body.data).toMatchObject([{ parentMessageId: groupParent.id, receiverType: 'group', receiverId: 'reading-club', lastReply: { sender: 'amy' } }]);
    const oneOnOne = await threadsOf('amy', '?uid=bill');
    expect(oneOnOne.body.data.every((t: any) => t.conversationId === 'amy_user_bill')).toBe(true);
    // On someone's behalf `participatedByMe=false` lists every thread they can see, followed or not.
    expect(threadIds(await threadsOf('dan'))).not.toContain(cleosThread.id);
    const visible = await threadsOf('dan', '?participatedByMe=false&limit=100');
    expect(threadIds(visible)).toContain(cleosThread.id);
    expect(visible.body.data.every((t: any) => t.conversationId === 'cleo_user_dan' && t.subscribed === undefined)).toBe(true);
    const paged = await threadsOf(undefined, '?limit=1&page=2');
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.meta.pagination).toMatchObject({ per_page: 1, current_page: 2, total: all.body.data.length });
  });

  it('refuses replies as threads, outsiders, unknown ids and bad queries', async () => {
    const parent = await send('amy', 'bill', 'root');
    const child = await reply('bill', parent.id, 'child');
    const subscribe = (id: string, onBehalfOf: string) => app.call('POST', `/v3/messages/${id}/thread/subscription`, { onBehalfOf });
    expectError(await subscribe(child.id, 'amy'), 400, 'ERR_MESSAGE_THREAD_NESTING', parent.id);
    expectError(await subscribe(parent.id, 'cleo'), 403, 'ERR_MESSAGE_NO_ACCESS');
    expectError(await subscribe('99999999', 'amy'), 404, 'ERR_MESSAGE_ID_NOT_FOUND');
    expectError(await app.call('POST', `/v3/messages/${parent.id}/thread/subscription`), 400, 'ERR_EMPTY_ON_BEHALF_OF');
    expectError(await threadsOf('amy', '?uid=bill&guid=club'), 400, 'ERR_BAD_REQUEST', 'guid');
    expectError(await threadsOf('amy', '?limit=0'), 400, 'ERR_BAD_REQUEST', 'limit');
    expectError(await threadsOf(undefined, '?participatedByMe=true'), 400, 'ERR_BAD_REQUEST', 'participatedByMe');
    expectError(await threadsOf('amy', '?unreadOnly=true'), 400, 'ERR_BAD_REQUEST', 'unreadOnly');
    expectError(await threadsOf('amy', '?uid=amy'), 400, 'ERR_BAD_REQUEST', 'uid');
  });
});

describe('GET /ai-agents/tools/{name}', () => {
  it('answers one tool in the shape the tool writes answer, and 404 for an unknown name', async () => {
    const body = { name: 'lookup_order', displayName: 'Look up order', executionText: 'Looking…', description: 'An order by id' };
    const created = await app.call('POST', '/v3/ai-agents/tools', { body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const got = await app.call('GET', '/v3/ai-agents/tools/lookup_order');
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body).toEqual(created.body);
    expect(got.body).toMatchObject({ name: 'lookup_order', displayName: 'Look up order', tool: { description: 'An order by id' } });
    expectError(await app.call('GET', '/v3/ai-agents/tools/no_such_tool'), 404, 'ERR_TOOL_NOT_FOUND');
  });
});
