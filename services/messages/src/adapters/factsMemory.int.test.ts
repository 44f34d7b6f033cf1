import { randomBytes } from 'node:crypto';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessagesReadModels } from './readModels.js';

// The facts a send reads, from memory over the real FerretDB: read once, forgotten when an event
// changes them, and never kept older than what the store shows.
const userCreated = (uid: string) =>
  testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid.toUpperCase(), role: 'default', tags: [], createdAt: 10 });
const blocked = (uid: string, other: string) => testEnvelope('UsersBlocked', `user:app1:${uid}`, 2, { uid, blockedUids: [other], blockedAt: 20 });

describe('the messages service facts memory on FerretDB', () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  const db = client.db(`facts_memory_test_${randomBytes(4).toString('hex')}`);

  beforeAll(async () => {
    await client.connect();
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('reads a user once, then from memory until an event changes it, and then only once the store has it', async () => {
    const models = new MessagesReadModels(db);
    await models.apply([userCreated('a'), userCreated('b')]);
    const blockedOf = async () => (await models.findFacts('app1', { users: ['a', 'b'] })).users.get('a')?.blocked;

    expect(await blockedOf()).toEqual([]);
    expect(await blockedOf()).toEqual([]);
    expect(models.factsReads).toEqual({ hits: 2, misses: 2 });

    const block = blocked('a', 'b');
    models.observeFacts([block]); // on Kafka, not yet projected
    expect(await blockedOf()).toEqual([]);
    expect(await blockedOf()).toEqual([]);
    expect(models.factsReads.misses).toBe(4);

    await models.apply([block]);
    expect(await blockedOf()).toEqual(['b']);
    expect(await blockedOf()).toEqual(['b']);
    expect(models.factsReads.misses).toBe(5);
  });

  it('never pairs a member just read with an older group kept in memory (two replicas, one store)', async () => {
    const stream = 'group:app1:club';
    const created = testEnvelope('GroupCreated', stream, 1, { guid: 'club', name: 'Club', type: 'public', owner: 'o', tags: [], createdAt: 1 });
    const ownerAdded = testEnvelope('GroupMembersAdded', stream, 2, { guid: 'club', members: [{ uid: 'o', scope: 'admin' }], addedAt: 2 });
    const annJoined = testEnvelope('GroupMemberJoined', stream, 3, { guid: 'club', uid: 'ann', scope: 'participant', joinedAt: 3 });
    const projecting = new MessagesReadModels(db);
    const other = new MessagesReadModels(db);
    await projecting.apply([created, ownerAdded]);
    expect((await other.findFacts('app1', { users: [], guid: 'club' })).group?.membersCount).toBe(1);

    // The projecting replica applies the join; the other's watch has not seen it yet, so its group is still remembered.
    await projecting.apply([annJoined]);
    const facts = await other.findFacts('app1', { users: [], guid: 'club', members: ['ann'] });
    expect(facts.memberships.get('ann')?.standing).toBe('member');
    expect(facts.group?.membersCount).toBe(2);
  });
});
