import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, eventually } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { mapBounded } from './support/concurrency.js';

/*
 * The migration the issue describes, end to end through the gateway: 1,000 users, 20 groups with 50
 * members each, 10,000 messages (half in groups, half one-on-one), imported 50 records a request;
 * then lists, conversations with unread counts agree with what was imported, and a rerun of the whole
 * import changes nothing.
 */

const USERS = 1_000;
const GROUPS = 20;
const MEMBERS_PER_GROUP = USERS / GROUPS;
const GROUP_MESSAGES = 5_000;
const DIRECT_MESSAGES = 5_000;
const PAIRS = USERS / 2;
const BATCH = 50;

const base = Math.floor(Date.now() / 1000) - 365 * 86_400;
const uid = (i: number) => `u${String(i).padStart(4, '0')}`;
const guid = (g: number) => `g${String(g).padStart(2, '0')}`;

interface Msg {
  muid: string;
  sender: string;
  receiverType: 'user' | 'group';
  receiver: string;
  type: 'text';
  data: { text: string };
  sentAt: number;
}

function chunks<T>(items: readonly T[], size = BATCH): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));
}

const users = Array.from({ length: USERS }, (_, i) => ({ uid: uid(i), name: `User ${i}`, createdAt: base + i }));
const groups = Array.from({ length: GROUPS }, (_, g) => ({ guid: guid(g), name: `Group ${g}`, type: 'public', owner: uid(g * MEMBERS_PER_GROUP), createdAt: base + 2_000 + g }));
const members = groups.flatMap((group, g) =>
  Array.from({ length: MEMBERS_PER_GROUP }, (_, m) => {
    const member = uid(g * MEMBERS_PER_GROUP + m);
    return { memberId: `${group.guid}_member_${member}`, guid: group.guid, uid: member, scope: m === 1 ? 'moderator' : 'participant', joinedAt: base + 3_000 + m };
  }),
);
// Interleaved in time: message i is sent at base + 10,000 + i, group and direct ones alternating.
const messages: Msg[] = Array.from({ length: GROUP_MESSAGES + DIRECT_MESSAGES }, (_, i) => {
  const sentAt = base + 10_000 + i;
  if (i % 2 === 0) {
    const k = i / 2;
    const g = k % GROUPS;
    const sender = uid(g * MEMBERS_PER_GROUP + (k % MEMBERS_PER_GROUP));
    return { muid: `gm${i}`, sender, receiverType: 'group', receiver: guid(g), type: 'text', data: { text: `group message ${i}` }, sentAt };
  }
  const k = (i - 1) / 2;
  const pair = k % PAIRS;
  // Within a pair, the first user writes three messages for every one the second writes.
  const fromFirst = Math.floor(k / PAIRS) % 4 !== 3;
  const [a, b] = [uid(2 * pair), uid(2 * pair + 1)];
  return { muid: `dm${i}`, sender: fromFirst ? a : b, receiverType: 'user', receiver: fromFirst ? b : a, type: 'text', data: { text: `direct ${i}` }, sentAt };
});

function keyed<T>(records: readonly T[], key: (record: T) => string): Record<string, T> {
  return Object.fromEntries(records.map((record) => [key(record), record]));
}

async function importAll(app: TestApp): Promise<ApiResponse[]> {
  const send = (path: string, property: string, batches: Record<string, unknown>[], inFlight = 4) =>
    mapBounded(batches, inFlight, (records) => app.call('POST', `/v3/data_import/${path}`, { body: { [property]: records } }));
  const answers: ApiResponse[] = [];
  answers.push(...(await send('users', 'users', chunks(users).map((c) => keyed(c, (u) => u.uid)))));
  answers.push(...(await send('groups', 'groups', chunks(groups).map((c) => keyed(c, (g) => g.guid)))));
  answers.push(...(await send('members', 'members', chunks(members).map((c) => keyed(c, (m) => m.memberId)))));
  // Messages go in sentAt order, one request after another, as a migration sends history: requests in
  // flight together may be appended in any order, and a conversation lists its messages by id.
  answers.push(...(await send('messages', 'messages', chunks(messages).map((c) => keyed(c, (m) => m.muid)), 1)));
  return answers;
}

function failures(answers: readonly ApiResponse[]): unknown[] {
  return answers.flatMap((answer) =>
    answer.status !== 200 ? [answer.body] : Object.values(answer.body.data as Record<string, { success: boolean }>).filter((r) => !r.success),
  );
}

let app: TestApp;
let firstRun: ApiResponse[];
const idsByMuid = new Map<string, string>();

beforeAll(async () => {
  app = await createApp('bulk import');
  firstRun = await importAll(app);
  for (const answer of firstRun) {
    for (const [key, result] of Object.entries(answer.body.data as Record<string, { success: boolean; data: { id?: string } }>)) {
      if (result.data.id !== undefined) idsByMuid.set(key, result.data.id);
    }
  }
}, 600_000);

describe('a bulk import of 1,000 users, 20 groups with members and 10,000 messages', () => {
  it('answers success for every record', () => {
    expect(failures(firstRun)).toEqual([]);
    expect(idsByMuid.size).toBe(messages.length);
  });

  it('lists a group’s messages in sentAt order with their senders and times', async () => {
    const expected = messages.filter((m) => m.receiver === guid(7));
    const listed = await app.call('GET', `/v3/groups/${guid(7)}/messages?limit=1000`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((m: any) => [m.muid, m.sender, m.sentAt])).toEqual(expected.map((m) => [m.muid, m.sender, m.sentAt]));
    const members = await app.call('GET', `/v3/groups/${guid(7)}/members?perPage=100`);
    expect(members.body.meta.pagination.total).toBe(MEMBERS_PER_GROUP);
  });

  it('shows one-on-one conversations with the last imported message and the receiver’s unread count', async () => {
    const [a, b] = [uid(2 * 123), uid(2 * 123 + 1)];
    const between = messages.filter((m) => m.receiverType === 'user' && [m.sender, m.receiver].sort().join() === [a, b].sort().join());
    const last = between.at(-1) as Msg;
    const unreadFor = (viewer: string) => String(between.filter((m) => m.receiver === viewer).length);
    const conversation = await eventually(
      () => app.call('GET', `/v3/users/${b}/conversation`, { onBehalfOf: a }),
      (r) => r.status === 200 && r.body.data?.lastMessage?.muid === last.muid && r.body.data?.unreadMessageCount === unreadFor(a),
      60_000,
    );
    expect(conversation.body.data).toMatchObject({ unreadMessageCount: unreadFor(a), lastMessage: { muid: last.muid, sentAt: last.sentAt } });
    const other = await app.call('GET', `/v3/users/${a}/conversation`, { onBehalfOf: b });
    expect(other.body.data.unreadMessageCount).toBe(unreadFor(b));
  });

  it('shows group conversations with the last imported message and unread counts of its members', async () => {
    const group = messages.filter((m) => m.receiver === guid(3));
    const viewer = uid(3 * MEMBERS_PER_GROUP + 5);
    const conversation = await eventually(
      () => app.call('GET', `/v3/groups/${guid(3)}/conversation`, { onBehalfOf: viewer }),
      (r) => r.status === 200 && r.body.data?.lastMessage?.muid === group.at(-1)?.muid,
      60_000,
    );
    expect(conversation.body.data.unreadMessageCount).toBe(String(group.filter((m) => m.sender !== viewer).length));
  });

  it('counts the imported messages and their senders in the usage metrics', async () => {
    const range = `fromDate=${base}&toDate=${base + 20_000}`;
    const daily = await app.call('GET', `/v3/stats/messages?${range}`);
    expect(daily.status).toBe(200);
    const points = daily.body.data.dataPoints as { messagesSent: number }[];
    expect(points.reduce((sum, p) => sum + p.messagesSent, 0)).toBe(messages.length);
    const usage = await app.call('GET', `/v3/stats?${range}`);
    expect(usage.body.data.metrics.active_users).toBe(new Set(messages.map((m) => m.sender)).size);
  });

  it('changes nothing when the whole import runs again', async () => {
    const before = await app.call('GET', `/v3/users/${uid(11)}/messages?limit=1000`, { onBehalfOf: uid(10) });
    const rerun = await importAll(app);
    expect(failures(rerun)).toEqual([]);
    for (const answer of rerun.slice(-Math.ceil(messages.length / BATCH))) {
      for (const [key, result] of Object.entries(answer.body.data as Record<string, { data: { id: string } }>)) {
        expect(result.data.id).toBe(idsByMuid.get(key));
      }
    }
    const after = await app.call('GET', `/v3/users/${uid(11)}/messages?limit=1000`, { onBehalfOf: uid(10) });
    expect(after.body.data).toEqual(before.body.data);
    const groupList = await app.call('GET', `/v3/groups/${guid(7)}/messages?limit=1000`);
    expect(groupList.body.data).toHaveLength(GROUP_MESSAGES / GROUPS);
    const members = await app.call('GET', `/v3/groups/${guid(7)}/members?perPage=100`);
    expect(members.body.meta.pagination.total).toBe(MEMBERS_PER_GROUP);
  }, 600_000);
});
