import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@chat/contracts';
import { MongoClient } from 'mongodb';
import type { CommandStartedEvent, Db, Document } from 'mongodb';
import type { StoredRecord } from '@chat/mongo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageSent, pinChanged, testEnvelope } from '../projections/testEvents.js';
import { ConversationReadModels, readModelDocuments } from './readModels.js';

// The conversation read models against the real FerretDB (text fields, scans): redelivery and a
// rebuild from scratch give the same documents, and the views read back as in memory.
const userCreated = (uid: string) =>
  testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid.toUpperCase(), role: 'default', tags: [], createdAt: 10 });
const message = (version: number, id: string, sender: string, receiver: string) =>
  messageSent(version, id, sender, receiver, { metadata: { 'dotted.key': [[1]] } });
const pin = (type: 'ConversationPinned' | 'ConversationUnpinned', version: number) => pinChanged(type, version, 50 + version);
const globalPins = testEnvelope('GlobalPinnedConversationsReplaced', 'app-pins:app1', 1, {
  pinnedConversations: [{ conversationType: 'user', conversationWith: 'b', pinnedAt: 70 }],
});

const history = [
  userCreated('a'),
  userCreated('b'),
  message(1, '1', 'a', 'b'),
  pin('ConversationPinned', 1),
  message(2, '2', 'b', 'a'),
  globalPins,
  message(3, '3', 'b', 'a'),
  pin('ConversationUnpinned', 2),
  pin('ConversationPinned', 3),
];

const COLLECTIONS = ['conversation_timelines', 'conversation_history', 'conversation_members', 'conversation_message_copies', 'conversation_inboxes', 'users', 'global_pins'];

function withoutRevision(doc: Record<string, unknown>) {
  const { _rev, ...rest } = doc;
  void _rev;
  return rest;
}

describe('conversation read models on FerretDB', () => {
  // The system tier's global setup exports MONGO_URL (its own FerretDB, or the one given).
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  const databases: Db[] = [];
  const freshDb = () => {
    const db = client.db(`projection_test_${randomBytes(4).toString('hex')}`);
    databases.push(db);
    return db;
  };
  const dump = async (db: Db) =>
    Object.fromEntries(
      await Promise.all(
        COLLECTIONS.map(async (name) => [
          name,
          // The revision counts writes, which depend on arrival order; the content must not. Timelines and
          // inboxes as read: a head with its revisions (ADR 0056), whose cut depends on the batches too.
          (await readModelDocuments(db, name)).sort((x, y) => (x._id < y._id ? -1 : 1)).map(withoutRevision),
        ]),
      ),
    );
  const applyOneByOne = async (models: ConversationReadModels, events: readonly EventEnvelope[]) => {
    for (const event of events) await models.apply([event]);
  };

  beforeAll(async () => {
    await client.connect();
  });
  afterAll(async () => {
    for (const db of databases) await db.dropDatabase();
    await client.close();
  });

  it('builds both participants’ views and lists', async () => {
    const db = freshDb();
    const models = new ConversationReadModels(db);
    await applyOneByOne(models, history);
    const forA = await models.conversations.facts('app1', 'a', 'a_user_b');
    expect(forA?.conversation).toMatchObject({ owner: 'a', peer: 'b', unreadCount: 2, pinnedAt: 53, listed: true });
    expect(JSON.parse(forA?.conversation.lastMessage ?? '{}')).toMatchObject({ id: '3', data: { metadata: { 'dotted.key': [[1]] } } });
    expect((await models.conversations.facts('app1', 'b', 'a_user_b'))?.conversation).toMatchObject({ unreadCount: 1 });
    const pins = await models.findGlobalPins('app1');
    expect(pins).toEqual([{ conversationType: 'user', conversationWith: 'b', pinnedAt: 70 }]);
    // The inbox page and the scanning one (a filter) agree.
    const fromInbox = await models.conversations.listForUser('app1', 'a', pins, {}, 1, 10);
    const scanned = await models.conversations.listForUser('app1', 'a', pins, { conversationType: 'user' }, 1, 10);
    expect(fromInbox.total).toBe(1);
    expect(scanned).toEqual(fromInbox);
    // A cursor after the only conversation finds nothing more, by either path.
    const afterLast = await models.conversations.listForUser('app1', 'a', pins, {}, 1, 10, fromInbox.last);
    expect([afterLast.items, afterLast.more, fromInbox.more]).toEqual([[], false, false]);
    expect((await models.listForApp('app1', {}, { after: undefined, skip: 0 }, 10)).items.map((item) => item.conversationId)).toEqual(['a_user_b']);
  });

  it("reads a user's filtered list and the app-wide list through the app's indexes, not every app's documents", async () => {
    const db = freshDb();
    const models = new ConversationReadModels(db);
    await models.ensureIndexes();
    await applyOneByOne(models, history);
    const finds: Document[] = [];
    const watcher = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017', { monitorCommands: true });
    await watcher.connect();
    const watched = new ConversationReadModels(watcher.db(db.databaseName));
    const listener = (event: CommandStartedEvent) => {
      const collection = event.command['find'];
      if (event.commandName === 'find' && (collection === 'conversation_timelines' || collection === 'conversation_members')) finds.push({ collection, filter: event.command['filter'] });
    };
    watcher.on('commandStarted', listener);
    try {
      const pins = await watched.findGlobalPins('app1');
      const filtered = await watched.conversations.listForUser('app1', 'a', pins, { conversationType: 'user' }, 1, 10);
      const appWide = await watched.listForApp('app1', {}, { after: undefined, skip: 0 }, 10);
      expect(filtered.items.map((item) => item.conversationId)).toEqual(['a_user_b']);
      expect(appWide.items.map((item) => item.conversationId)).toEqual(['a_user_b']);
    } finally {
      watcher.off('commandStarted', listener);
      await watcher.close();
    }
    // The scans of the filtered list (timelines by participant, members by owner) and the app-wide list.
    expect(finds.filter((f) => !('_id' in f['filter']))).toHaveLength(3);
    for (const { collection, filter } of finds.filter((f) => !('_id' in f['filter']))) {
      const explained = await db.command({ explain: { find: collection, filter } });
      // SQLite's own plan: a search of one of the app's indexes; a scan of the collection before.
      expect(JSON.stringify(explained['queryPlanner'])).toMatch(/SEARCH \S+ USING INDEX/);
      expect(JSON.stringify(explained['queryPlanner'])).not.toMatch(/SCAN/);
    }
  });

  it('is unchanged when every event is delivered again', async () => {
    const db = freshDb();
    const models = new ConversationReadModels(db);
    await applyOneByOne(models, history);
    const once = await dump(db);
    // The copies are read where they are now (the appends collection, ADR 0089): one per message.
    expect((once['conversation_message_copies'] as unknown[]).length).toBe(3);
    await models.apply(history);
    await applyOneByOne(new ConversationReadModels(db), [...history].reverse());
    expect(await dump(db)).toEqual(once);
  });

  it('reads inbox revisions and message copies stored where they were before ADR 0089, and marks an inbox on its next write', async () => {
    const db = freshDb();
    await applyOneByOne(new ConversationReadModels(db), history.slice(0, -1));
    const expected = await dump(db);
    const listed = await new ConversationReadModels(db).conversations.listForUser('app1', 'b', [], {}, 1, 10);
    // Put them back where the build before stored them: unprefixed in their own collections, inbox heads unmarked.
    const appends = db.collection<StoredRecord>('conversation_timeline_revisions');
    for (const [prefix, name] of [['~i', 'conversation_inbox_revisions'], ['~c', 'conversation_message_copies']] as const) {
      const moved = await appends.find({ _id: { $regex: `^${prefix}` } }).toArray();
      expect(moved.length).toBeGreaterThan(0);
      await db.collection<StoredRecord>(name).insertMany(moved.map((doc) => ({ ...doc, _id: doc._id.slice(prefix.length) })));
      await appends.deleteMany({ _id: { $in: moved.map((doc) => doc._id) } });
    }
    await db.collection('conversation_inboxes').updateMany({}, { $unset: { _tailed: '' } });
    const models = new ConversationReadModels(db);
    expect(await dump(db)).toEqual(expected);
    expect(await models.conversations.listForUser('app1', 'b', [], {}, 1, 10)).toEqual(listed);
    await models.apply(history.slice(-1));
    // The legacy head's fold runs behind the write (ADR 0130): the mark is stored once it settles.
    await models.settled();
    expect((await db.collection('conversation_inboxes').find({ _tailed: 1 }).toArray()).map((doc) => doc['_id'])).toEqual(['app1:a']);
  });

  it('gives identical documents when rebuilt from scratch, whatever the interleaving of sources', async () => {
    const live = freshDb();
    await applyOneByOne(new ConversationReadModels(live), history);
    const bySource = (wanted: (e: EventEnvelope) => boolean) => history.filter(wanted);
    const isMessage = (e: EventEnvelope) => e.type === 'MessageSent';
    const rebuilt = freshDb();
    await new ConversationReadModels(rebuilt).apply([...bySource((e) => !isMessage(e)), ...bySource(isMessage)]);
    expect(await dump(rebuilt)).toEqual(await dump(live));
  });
});
