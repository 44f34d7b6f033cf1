import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@chat/contracts';
import { MongoCommitStore } from '@chat/mongo';
import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ModerationReadModels } from '../adapters/moderation/moderationReadModels.js';
import { MessageIds } from '../adapters/messageIds.js';
import { MessagesReadModels } from '../adapters/readModels.js';
import { createMessagesApp } from '../app/messages.js';
import { isGroupEvent } from '../projections/groups.js';
import { CommandRunner } from '@chat/eventsourcing';
import { testEnvelope as envelope } from '@chat/eventsourcing/testing';
import { GroupActionMessages } from './groupActions.js';

// Action messages on the real FerretDB: a redelivered group event, and the same events replayed by a
// restarted consumer (a new process: empty caches, same database), append nothing more.
const user = (uid: string) => envelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid.toUpperCase(), role: 'default', tags: [], createdAt: 1 });
const group = (version: number, type: string, data: Record<string, unknown>) => envelope(type, 'group:app1:g', version, { guid: 'g', ...data });
const history = [
  user('o'),
  user('a'),
  user('b'),
  group(1, 'GroupCreated', { name: 'G', type: 'public', owner: 'o', tags: [], createdAt: 1 }),
  group(2, 'GroupMembersAdded', { members: [{ uid: 'o', scope: 'admin' }], addedAt: 1 }),
  group(3, 'GroupMemberJoined', { uid: 'a', scope: 'participant', joinedAt: 2 }),
  group(4, 'GroupMembersAdded', { members: [{ uid: 'b', scope: 'participant' }], addedBy: 'o', addedAt: 3 }),
  group(5, 'GroupMemberKicked', { uid: 'b', kickedBy: 'o', kickedAt: 4 }),
];

describe('group action messages on FerretDB', () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  const db: Db = client.db(`actions_test_${randomBytes(4).toString('hex')}`);
  const published: EventEnvelope[] = [];
  const logger = pino({ level: 'silent' });

  /** What one process of the service holds: its own caches over the shared database. */
  function serviceProcess() {
    const readModels = new MessagesReadModels(db);
    const runner = new CommandRunner({
      store: new MongoCommitStore(db),
      readModels,
      logger,
      publisher: { publish: async (events) => void published.push(...events) },
    });
    const app = createMessagesApp({ runner, readModels, ids: new MessageIds(db), moderation: new ModerationReadModels(db) });
    const actions = new GroupActionMessages(app, readModels);
    return async (event: EventEnvelope) => {
      await readModels.apply([event]);
      if (isGroupEvent(event)) await actions.handle(event);
    };
  }

  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('records each group event once, across redelivery and a restart', async () => {
    await new MongoCommitStore(db).ensureIndexes();
    const first = serviceProcess();
    for (const event of history) await first(event);
    // Kafka redelivers the last two events to the same process…
    for (const event of history.slice(-2)) await first(event);
    // …and a restarted process replays everything from the start.
    const restarted = serviceProcess();
    for (const event of history) await restarted(event);

    const actions = published.filter((e) => e.type === 'MessageSent').map((e) => (e.data as { data: { action: string } }).data.action);
    expect(actions).toEqual(['joined', 'added', 'kicked']);
    const stored = await db.collection('messages').find({ conversationId: 'group_g' }).sort({ seq: 1 }).toArray();
    expect(stored.map((m) => JSON.parse(m['data'] as string).action)).toEqual(['joined', 'added', 'kicked']);
    expect(stored.map((m) => m['seq'])).toEqual([1, 2, 3]);
  });
});
