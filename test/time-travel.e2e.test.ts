import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, eventually } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { createGroup, createUsers, expectError } from './support/groups.js';

// Time-travel reads (ours, ADR 0033, docs/behaviour/time-travel.md): a conversation and its message list
// as of a consistency token or a time, rebuilt from the log, through the gateway on the real stack.

let app: TestApp;

beforeAll(async () => {
  app = await createApp('time travel');
  await createUsers(app, 'alice', 'bob', 'carol', 'dave');
});

/** A write that must succeed; its consistency token and the time right after it (before the next write). */
async function write(response: Promise<ApiResponse>): Promise<{ body: any; token: string; after: number }> {
  const done = await response;
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  const token = done.headers.get('x-consistency-token');
  expect(token).toBeTruthy();
  const after = Date.now();
  // The next write's events must be stamped later than `after`.
  await sleep(15);
  return { body: done.body, token: token!, after };
}

const send = (from: string, receiver: string, receiverType: 'user' | 'group', text: string) =>
  app.call('POST', '/v3/messages', { onBehalfOf: from, body: { receiver, receiverType, category: 'message', type: 'text', data: { text } } });

/** The listed messages as `id:text[:deleted]`, text messages only (a group also lists its action messages). */
function shown(response: ApiResponse): string[] {
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body.data as any[])
    .filter((m) => m.category === 'message')
    .map((m) => `${m.id}:${m.data?.text ?? ''}${m.deletedAt ? ':deleted' : ''}`);
}

const asOf = (value: string | number) => `asOf=${encodeURIComponent(String(value))}`;

describe('a one-on-one conversation as of a token or a time', () => {
  let m1: string;
  let m2: string;
  const tokens: string[] = [];
  const times: number[] = [];

  beforeAll(async () => {
    // 1 send, 2 send, 3 edit the first, 4 delete the second, 5 bob reads, 6 send a third, 7 erase it for good.
    const steps = [
      () => send('alice', 'bob', 'user', 'one'),
      () => send('alice', 'bob', 'user', 'two'),
      () => app.call('PUT', `/v3/messages/${m1}`, { onBehalfOf: 'alice', body: { data: { text: 'one, edited' } } }),
      () => app.call('DELETE', `/v3/messages/${m2}`, { onBehalfOf: 'alice', body: { permanent: false } }),
      () => app.call('POST', '/v3/users/alice/conversation/read', { onBehalfOf: 'bob', body: {} }),
      () => send('alice', 'bob', 'user', 'three'),
    ];
    for (const [index, step] of steps.entries()) {
      const done = await write(step());
      if (index === 0) m1 = String(done.body.data.id);
      if (index === 1) m2 = String(done.body.data.id);
      tokens.push(done.token);
      times.push(done.after);
    }
  });

  const list = (bound: string | number) => app.call('GET', `/v3/users/bob/messages?${asOf(bound)}`, { onBehalfOf: 'alice' });
  const conversation = (bound: string | number) => app.call('GET', `/v3/users/alice/conversation?${asOf(bound)}`, { onBehalfOf: 'bob' });

  it('lists each state the messages went through, by token and by time (seconds and milliseconds)', async () => {
    const expected = [
      [`${m1}:one`],
      [`${m1}:one`, `${m2}:two`],
      [`${m1}:one, edited`, `${m2}:two`],
      [`${m1}:one, edited`, `${m2}:two:deleted`],
    ];
    for (const [step, messages] of expected.entries()) {
      expect(shown(await list(tokens[step]!)), `token of step ${step + 1}`).toEqual(messages);
      expect(shown(await list(times[step]!)), `time after step ${step + 1}`).toEqual(messages);
    }
    // Before the first write there was nothing; epoch seconds name the same instants as milliseconds.
    expect(shown(await list(times[0]! - 10_000))).toEqual([]);
    expect(shown(await list(Math.floor((times[0]! - 10_000) / 1000)))).toEqual([]);
  });

  it('the state as of now is the live list', async () => {
    const live = await app.call('GET', '/v3/users/bob/messages', { onBehalfOf: 'alice' });
    expect(shown(await list(Date.now()))).toEqual(shown(live));
  });

  it('pages a past state like the live list: limit, and after an id', async () => {
    const first = await app.call('GET', `/v3/users/bob/messages?${asOf(tokens[1]!)}&limit=1`, { onBehalfOf: 'alice' });
    expect(shown(first)).toEqual([`${m1}:one`]);
    expect(first.body.meta.pagination).toMatchObject({ total: 2, count: 1 });
    const next = await app.call('GET', `/v3/users/bob/messages?${asOf(tokens[1]!)}&id=${m1}&affix=append`, { onBehalfOf: 'alice' });
    expect(shown(next)).toEqual([`${m2}:two`]);
  });

  it('shows the conversation’s last message and unread count of each state, marks included', async () => {
    const view = async (bound: string | number) => {
      const r = await conversation(bound);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return `${r.body.data.lastMessage?.id}/${r.body.data.unreadMessageCount}`;
    };
    expect(await view(tokens[0]!)).toBe(`${m1}/1`);
    expect(await view(tokens[1]!)).toBe(`${m2}/2`);
    expect(await view(times[1]!)).toBe(`${m2}/2`);
    // bob's read (a token of his marks stream): nothing unread as of then, still two unread before it.
    expect((await view(tokens[4]!)).endsWith('/0')).toBe(true);
    expect(await view(tokens[1]!)).toBe(`${m2}/2`);
    // Before any message there was no conversation to show.
    expectError(await conversation(times[0]! - 10_000), 404, 'ERR_CONVERSATION_NOT_ACCESSIBLE');
  });

  it('as of now, the conversation is the live one', async () => {
    const live = await eventually(
      () => app.call('GET', '/v3/users/alice/conversation', { onBehalfOf: 'bob' }),
      (r) => r.status === 200 && r.body.data.lastMessage?.data?.text === 'three',
    );
    const past = await conversation(Date.now());
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual(live.body.data);
  });

  it('a message erased for good stays erased in the past, in the list and as the last message', async () => {
    const sent = await write(send('alice', 'bob', 'user', 'secret'));
    const id = String(sent.body.data.id);
    expect(shown(await list(sent.token))).toContain(`${id}:secret`);
    await write(app.call('DELETE', `/v3/messages/${id}`, { onBehalfOf: 'alice', body: { permanent: true } }));
    expect(shown(await list(sent.token)).some((m) => m.startsWith(`${id}:`))).toBe(false);
    const past = await conversation(sent.token);
    expect(past.status).toBe(200);
    expect(past.body.data.lastMessage?.id).not.toBe(id);
  });

  it('refuses a malformed value, a future time, a token of another app or conversation, and filters, with a 400 naming them', async () => {
    for (const read of [list, conversation]) {
      expectError(await read('yesterday'), 400, 'ERR_BAD_REQUEST', 'asOf');
      expectError(await read(Date.now() + 60_000), 400, 'ERR_BAD_REQUEST', 'future');
    }
    const other = await createApp('time travel, another');
    await createUsers(other, 'alice', 'bob');
    const foreign = await other.call('POST', '/v3/messages', { onBehalfOf: 'alice', body: { receiver: 'bob', receiverType: 'user', type: 'text', data: { text: 'x' } } });
    const foreignToken = foreign.headers.get('x-consistency-token')!;
    expectError(await list(foreignToken), 400, 'ERR_BAD_REQUEST', 'another app');
    expectError(await conversation(foreignToken), 400, 'ERR_BAD_REQUEST', 'another app');
    const elsewhere = await write(send('carol', 'dave', 'user', 'elsewhere'));
    expectError(await list(elsewhere.token), 400, 'ERR_BAD_REQUEST', 'names no write of this conversation');
    expectError(await conversation(elsewhere.token), 400, 'ERR_BAD_REQUEST', 'names no write of this conversation');
    expectError(await app.call('GET', `/v3/users/bob/messages?${asOf(tokens[0]!)}&hideDeleted=true`, { onBehalfOf: 'alice' }), 400, 'ERR_BAD_REQUEST', 'hideDeleted');
    expectError(await app.call('GET', `/v3/users/bob/messages?${asOf(tokens[0]!)}`), 400, 'ERR_EMPTY_ON_BEHALF_OF');
    expectError(await app.call('GET', `/v3/users/alice/conversation?${asOf(tokens[0]!)}&other=1`, { onBehalfOf: 'bob' }), 400, 'ERR_BAD_REQUEST', 'other');
  });
});

describe('a group conversation as of a token or a time', () => {
  const guid = 'tt-group';
  let first: { token: string; id: string };
  let second: { token: string; id: string; after: number };

  beforeAll(async () => {
    await createGroup(app, { guid, name: 'Time travel', type: 'public', owner: 'alice', members: { participants: ['bob'] } });
    const sendWhenMember = () => eventually(() => send('alice', guid, 'group', 'g1'), (r) => r.status === 200, 15_000);
    const one = await write(sendWhenMember());
    first = { token: one.token, id: String(one.body.data.id) };
    const two = await write(send('bob', guid, 'group', 'g2'));
    second = { token: two.token, id: String(two.body.data.id), after: two.after };
    await write(app.call('PUT', `/v3/messages/${first.id}`, { onBehalfOf: 'alice', body: { data: { text: 'g1, edited' } } }));
  });

  it('lists and shows each state to a member', async () => {
    const list = (bound: string | number) => app.call('GET', `/v3/groups/${guid}/messages?${asOf(bound)}`, { onBehalfOf: 'bob' });
    expect(shown(await list(first.token))).toEqual([`${first.id}:g1`]);
    expect(shown(await list(second.token))).toEqual([`${first.id}:g1`, `${second.id}:g2`]);
    expect(shown(await list(second.after))).toEqual([`${first.id}:g1`, `${second.id}:g2`]);
    expect(shown(await list(Date.now()))).toEqual([`${first.id}:g1, edited`, `${second.id}:g2`]);
    const view = async (bound: string) => {
      const r = await app.call('GET', `/v3/groups/${guid}/conversation?${asOf(bound)}`, { onBehalfOf: 'alice' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return `${r.body.data.lastMessage?.id}/${r.body.data.unreadMessageCount}`;
    };
    expect(await view(first.token)).toBe(`${first.id}/0`);
    expect(await view(second.token)).toBe(`${second.id}/1`);
  });

  it('keeps the live read’s access rules: a non-member is refused the same way', async () => {
    for (const path of [`/v3/groups/${guid}/messages`, `/v3/groups/${guid}/conversation`]) {
      const live = await app.call('GET', path, { onBehalfOf: 'dave' });
      const past = await app.call('GET', `${path}?${asOf(second.token)}`, { onBehalfOf: 'dave' });
      expect(live.status).toBeGreaterThanOrEqual(400);
      expect([past.status, past.body?.error?.code]).toEqual([live.status, live.body?.error?.code]);
    }
  });
});
