import { randomBytes } from 'node:crypto';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { filtersSent, indexSearchedBy } from '@chat/mongo/testing';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PersonalReadModels } from './personalMarks/personalReadModels.js';
import { MessagesReadModels } from './readModels.js';

// The reads a request makes on one user's behalf, with other apps' documents stored beside theirs: each
// must search an index on FerretDB, never scan a collection of every app's documents (ADR 0076 addendum).
describe("the messages service's per-user reads on FerretDB", () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017', { monitorCommands: true });
  const db = client.db(`per_user_reads_${randomBytes(4).toString('hex')}`);
  const messages = new MessagesReadModels(db);
  const personal = new PersonalReadModels(db);

  /** The filters of the `find`s on `collection` while `run` runs. */
  const findsOn = (collection: string, run: () => Promise<unknown>) => filtersSent(client, collection, run, 'find');

  beforeAll(async () => {
    await client.connect();
    await messages.ensureIndexes();
    await personal.ensureIndexes();
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it("reads a user's groups through the memberships index", async () => {
    const group = (guid: string, uids: string[]) => [
      testEnvelope('GroupCreated', `group:app1:${guid}`, 1, { guid, name: guid, type: 'public', owner: 'o', tags: [], createdAt: 1 }),
      testEnvelope('GroupMembersAdded', `group:app1:${guid}`, 2, { guid, members: uids.map((uid) => ({ uid, scope: 'participant' })), addedAt: 2 }),
    ];
    await messages.apply([...group('club', ['ann', 'bob']), ...group('chess', ['bob']), ...group('quiz', ['ann'])]);
    await messages.apply([testEnvelope('GroupMemberLeft', 'group:app1:quiz', 3, { guid: 'quiz', uid: 'ann', leftAt: 3, membersCount: 0 })]);

    let guids: string[] = [];
    const filters = await findsOn('facts', async () => {
      guids = await messages.groupsOf('app1', 'ann');
    });
    expect(guids).toEqual(['club']);
    expect(filters).toHaveLength(1);
    expect(await indexSearchedBy(db, 'facts', filters[0] ?? {})).toMatch(/memberships_of_user/);
  });

  it('costs the same with thousands of other apps’ memberships stored (before/after figure)', async () => {
    const time = async (run: () => Promise<unknown>, rounds = 5) => {
      const started = performance.now();
      for (let i = 0; i < rounds; i++) await run();
      return (performance.now() - started) / rounds;
    };
    // The same filter without the hint: what every read of a user's groups cost before.
    const scan = () => db.collection('facts').find({ appId: 'app1', kind: 'member', uid: 'ann', standing: 'member' }).toArray();
    const before = { indexed: await time(() => messages.groupsOf('app1', 'ann')), scan: await time(scan) };
    const others = Number(process.env['MESSAGES_INT_OTHER_MEMBERSHIPS'] ?? 5000);
    const docs = Array.from({ length: others }, (_, i) => ({ _id: `other${i}:g:ann`, kind: 'member', appId: `other${i % 100}`, guid: `g${i}`, uid: 'ann', standing: 'member' }));
    for (let from = 0; from < docs.length; from += 500) await db.collection('facts').insertMany(docs.slice(from, from + 500) as never[]);
    const after = { indexed: await time(() => messages.groupsOf('app1', 'ann')), scan: await time(scan) };
    console.log(`groupsOf with 0 → ${others} other apps' memberships: ${before.indexed.toFixed(2)} → ${after.indexed.toFixed(2)} ms; the scan it replaces ${before.scan.toFixed(2)} → ${after.scan.toFixed(2)} ms`);
    expect(await messages.groupsOf('app1', 'ann')).toEqual(['club']);
  });

  it('lists messages and threads through the app’s message indexes', async () => {
    const sent = (appId: string, id: string, conversationId: string, sender: string, receiver: string, replyCount = 0) => ({
      _id: `${appId}:m${id}`,
      appId,
      id: `m${id}`,
      seq: 100 + Number(id),
      conversationId,
      sender,
      receiver,
      receiverType: 'user',
      replyCount,
      isDeleted: false,
      sentAt: Number(id),
    });
    await db.collection('messages').insertMany([sent('app3', '1', 'ann_bob', 'ann', 'bob', 1), sent('app3', '2', 'ann_cy', 'cy', 'ann'), sent('app4', '3', 'ann_bob', 'ann', 'bob', 1)] as never[]);
    let ids: string[][] = [];
    const filters = await findsOn('messages', async () => {
      ids = [
        (await messages.listMessages({ appId: 'app3', conversationId: 'ann_bob' }, null, 10)).map((m) => m.id),
        (await messages.pageMessages({ appId: 'app3', sender: 'cy' }, { after: undefined, skip: 0 }, 10)).items.map((m) => m.id),
        (await messages.listMessages({ appId: 'app3', visibleTo: { uid: 'ann', guids: [] } }, null, 10)).map((m) => m.id),
        (await personal.pageThreads({ appId: 'app3' }, { after: undefined, skip: 0 }, 10)).items.map((m) => m.id),
      ];
    });
    expect(ids).toEqual([['m1'], ['m2'], ['m1', 'm2'], ['m1']]);

    // The figure: a conversation's page beside 0 → N other apps' messages, and the untagged filter it replaces.
    const time = async (run: () => Promise<unknown>, rounds = 5) => {
      const started = performance.now();
      for (let i = 0; i < rounds; i++) await run();
      return (performance.now() - started) / rounds;
    };
    const page = () => messages.listMessages({ appId: 'app3', conversationId: 'ann_bob' }, null, 10);
    const scan = () => db.collection('messages').find({ appId: 'app3', conversationId: 'ann_bob' }).sort({ seq: 1 }).limit(10).toArray();
    const before = { indexed: await time(page), scan: await time(scan) };
    const others = Number(process.env['MESSAGES_INT_OTHER_MESSAGES'] ?? 5000);
    const docs = Array.from({ length: others }, (_, i) => sent(`other${i % 100}`, String(1000 + i), 'ann_bob', 'ann', 'bob'));
    for (let from = 0; from < docs.length; from += 500) await db.collection('messages').insertMany(docs.slice(from, from + 500) as never[]);
    const after = { indexed: await time(page), scan: await time(scan) };
    console.log(`a conversation's page with 0 → ${others} other apps' messages: ${before.indexed.toFixed(2)} → ${after.indexed.toFixed(2)} ms; the scan it replaces ${before.scan.toFixed(2)} → ${after.scan.toFixed(2)} ms`);
    expect((await page()).map((m) => m.id)).toEqual(['m1']);
    expect(filters).toHaveLength(4);
    const searched = await Promise.all(filters.map((filter) => indexSearchedBy(db, 'messages', filter)));
    expect(searched[0]).toMatch(/conversation_order/);
    expect(searched[1]).toMatch(/sender_order/);
    for (const index of searched.slice(2)) expect(index).toMatch(/_/);
  });

  it("reads an app's usage facts through an index of the app", async () => {
    await db.collection('receipt_facts').insertMany([
      { _id: 'app5:r1', appId: 'app5', kind: 'read', at: 10 },
      { _id: 'app6:r1', appId: 'app6', kind: 'read', at: 10 },
    ] as never[]);
    await db.collection('messages').insertMany([
      { _id: 'app5:m1', appId: 'app5', id: 'm1', seq: 1, sender: 'ann', type: 'text', category: 'message', sentAt: 10 },
      { _id: 'app6:m1', appId: 'app6', id: 'm1', seq: 1, sender: 'ann', type: 'text', category: 'message', sentAt: 10 },
    ] as never[]);
    let counts: number[] = [];
    const messageFinds = await findsOn('messages', async () => {
      counts = [(await messages.messageFactsBetween('app5', 0, 20)).length];
    });
    const receiptFinds = await findsOn('receipt_facts', async () => {
      counts.push((await messages.receiptFactsBetween('app5', 0, 20)).length);
    });
    expect(counts).toEqual([1, 1]);
    // Only `appId` reaches SQL (the range stays with the handler), so SQLite may take any index it leads.
    expect(await indexSearchedBy(db, 'messages', messageFinds[0] ?? {})).toMatch(/_\w+_order$/);
    expect(await indexSearchedBy(db, 'receipt_facts', receiptFinds[0] ?? {})).toMatch(/app_time/);
  });

  it('keeps no index that only the usage metrics read, and drops it from an older store (ADR 0097)', async () => {
    const older = client.db(`${db.databaseName}_older`);
    await older.collection('messages').createIndex({ appId: 1, sentAt: 1 }, { name: 'app_time' });
    const namesOf = async (of: typeof db) => (await of.collection('messages').listIndexes().toArray()).map((index) => index.name as string).sort();
    try {
      await new MessagesReadModels(older).ensureIndexes();
      const expected = ['_id_', 'app_order', 'conversation_order', 'receiver_order', 'sender_order', 'thread_order'];
      expect(await namesOf(older)).toEqual(expected);
      expect(await namesOf(db)).toEqual(expected);
      // Again: nothing left to drop.
      await new MessagesReadModels(older).ensureIndexes();
      expect(await namesOf(older)).toEqual(expected);
    } finally {
      await older.dropDatabase();
    }
  });

  it("reads a user's receipt marks through their index", async () => {
    const marks = (appId: string, uid: string, conversationId: string, upTo: number) => ({
      _id: `${appId}:${uid}:${conversationId}`,
      appId,
      uid,
      conversationId,
      readUpTo: upTo,
      deliveredUpTo: upTo + 1,
    });
    await db.collection('receipt_marks').insertMany([marks('app1', 'ann', 'c1', 3), marks('app1', 'ann', 'c2', 5), marks('app2', 'ann', 'c1', 7), marks('app1', 'bob', 'c1', 9)] as never[]);
    let all: number[] = [];
    let one: number[] = [];
    const filters = await findsOn('receipt_marks', async () => {
      all = (await messages.marksOf('app1', 'ann', 'read')).marks.map((m) => m.upTo).sort();
      one = (await messages.marksOf('app1', 'ann', 'delivered', 'c1')).marks.map((m) => m.upTo);
    });
    expect(all).toEqual([3, 5]);
    expect(one).toEqual([4]);
    expect(filters).toHaveLength(2);
    for (const filter of filters) expect(await indexSearchedBy(db, 'receipt_marks', filter)).toMatch(/marks_of_user/);
  });

  it("reads a user's thread subscriptions, started threads and last replies through their indexes", async () => {
    const subscription = (appId: string, uid: string, parentId: string) => ({
      _id: `thread:${appId}:${uid}:${parentId}`,
      appId,
      uid,
      parentId,
      conversationId: 'c',
      subscribed: true,
      changedAt: 1,
    });
    const message = (appId: string, id: string, sender: string, replyCount: number) => ({ _id: `${appId}:${id}`, appId, id, sender, replyCount, seq: Number(id) });
    await db.collection('thread_subscriptions').insertMany([subscription('app1', 'ann', '1'), subscription('app2', 'ann', '2'), subscription('app1', 'bob', '3')] as never[]);
    const reply = (appId: string, id: string, parentId: string) => ({ ...message(appId, id, 'bob', 0), parentId });
    await db.collection('messages').insertMany([message('app1', '1', 'ann', 2), message('app1', '2', 'ann', 0), message('app2', '3', 'ann', 1), message('app1', '4', 'bob', 1)] as never[]);
    await db.collection('messages').insertMany([reply('app1', '5', '1'), reply('app1', '6', '1'), reply('app2', '7', '1')] as never[]);

    let parents: string[] = [];
    let started: string[] = [];
    const subscriptionFinds = await findsOn('thread_subscriptions', async () => {
      parents = (await personal.subscriptionsOf('app1', 'ann')).map((s) => s.parentId);
    });
    const messageFinds = await findsOn('messages', async () => {
      started = await personal.threadsStartedBy('app1', 'ann');
    });
    let lastReply: string | undefined;
    const replyFinds = await findsOn('messages', async () => {
      lastReply = (await personal.lastReplies('app1', ['1'])).get('1')?.id;
    });
    expect(lastReply).toBe('6');
    expect(replyFinds).toHaveLength(1);
    expect(await indexSearchedBy(db, 'messages', replyFinds[0] ?? {})).toMatch(/thread_order/);
    expect(parents).toEqual(['1']);
    expect(started).toEqual(['1']);
    expect(subscriptionFinds).toHaveLength(1);
    expect(messageFinds).toHaveLength(1);
    expect(await indexSearchedBy(db, 'thread_subscriptions', subscriptionFinds[0] ?? {})).toMatch(/threads_of_user/);
    expect(await indexSearchedBy(db, 'messages', messageFinds[0] ?? {})).toMatch(/sender_order/);
  });
});
