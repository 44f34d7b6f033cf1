import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@chat/contracts';
import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asDomainEvents, deletedAfter, groupHistory, lifeOfAGroup } from '../../projections/groups/groupsTestEvents.js';
import { GroupReadModels } from './groupsReadModels.js';

// The group read models against the real FerretDB: redelivery, deletion and rebuild.
/** The first page, as a list without a cursor asks for it. */
const FIRST = { after: undefined, skip: 0 };

describe('group read models on FerretDB', () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  const databases: Db[] = [];
  const freshModels = () => {
    const db = client.db(`group_projection_test_${randomBytes(4).toString('hex')}`);
    databases.push(db);
    return { db, models: new GroupReadModels(db) };
  };
  const dump = async (db: Db) =>
    Object.fromEntries(
      await Promise.all(
        ['groups', 'group_members', 'group_bans'].map(async (name) => [name, await db.collection(name).find({}).sort({ _id: 1 }).toArray()]),
      ),
    );
  const applyAll = async (models: GroupReadModels, events: readonly EventEnvelope[]) => {
    for (const event of events) await models.apply([event]);
  };
  const history = groupHistory('g', lifeOfAGroup);

  beforeAll(async () => {
    await client.connect();
  });
  afterAll(async () => {
    for (const db of databases) await db.dropDatabase();
    await client.close();
  });

  it('answers the queries the API needs', async () => {
    const { models } = freshModels();
    await models.ensureIndexes();
    await applyAll(models, history);
    expect(await models.findGroup('app1', 'g')).toMatchObject({ name: 'Gee 2', membersCount: 2 });
    expect((await models.listMembers('app1', 'g', undefined, FIRST, 10)).items.map((m) => m.uid)).toEqual(['o', 'p']);
    expect((await models.listMembers('app1', 'g', ['moderator'], FIRST, 10)).items.map((m) => m.uid)).toEqual(['p']);
    const first = await models.listMembers('app1', 'g', undefined, FIRST, 1);
    expect([first.items.map((m) => m.uid), first.more]).toEqual([['o'], true]);
    const second = await models.listMembers('app1', 'g', undefined, { after: first.last, skip: 0 }, 1);
    expect([second.items.map((m) => m.uid), second.more, second.total]).toEqual([['p'], false, 2]);
    expect(await models.findMember('app1', 'g', 'q')).toBeNull();
    expect([...(await models.membershipsOf('app1', 'p')).keys()]).toEqual(['g']);
    const listed = await models.listGroups('app1', { sortBy: 'name', sortOrder: 'asc', search: { key: 'EE 2', fields: ['name'] } }, FIRST, 10);
    expect(listed.items.map((g) => g.guid)).toEqual(['g']);
  });

  it('is unchanged when every event is delivered again, in any order', async () => {
    const { db, models } = freshModels();
    await applyAll(models, history);
    const once = await dump(db);
    await applyAll(models, history);
    await applyAll(models, [...history].reverse());
    expect(await dump(db)).toEqual(once);
  });

  it('adds many members in one write, brings former members back, and survives a racing second applier', async () => {
    const { db, models } = freshModels();
    const newcomers = Array.from({ length: 40 }, (_, i) => `n${i}`);
    const readd = groupHistory(
      'g',
      [{ type: 'AddMembers', members: ['q', ...newcomers].map((uid) => ({ uid, scope: 'participant' as const })), usersToBan: [], knownUsers: ['q', ...newcomers], now: 30 }],
      history.length + 1,
      asDomainEvents(history),
    );
    await applyAll(models, history);
    await Promise.all([applyAll(models, readd), applyAll(models, readd)]);
    const members = await models.listMembers('app1', 'g', undefined, FIRST, 100);
    expect(members.total).toBe(43);
    expect(await models.findMember('app1', 'g', 'q')).toMatchObject({ scope: 'participant', joinedAt: 30, active: true });
    expect(await models.findGroup('app1', 'g')).toMatchObject({ membersCount: 43 });
    const once = await dump(db);
    await applyAll(models, [...history, ...readd]);
    expect(await dump(db)).toEqual(once);
    const rebuilt = freshModels();
    await applyAll(rebuilt.models, [...history, ...readd]);
    expect(await dump(rebuilt.db)).toEqual(once);
  });

  it('retires a deleted group with its members and bans, for good, and rebuilds to the same documents', async () => {
    const { db, models } = freshModels();
    const deleted = deletedAfter([...history, ...groupHistory('g', [{ type: 'BanMember', uid: 'q', now: 19 }], history.length + 1, asDomainEvents(history))]);
    await applyAll(models, deleted);
    expect(await models.findGroup('app1', 'g')).toBeNull();
    expect((await models.listMembers('app1', 'g', undefined, FIRST, 10)).total).toBe(0);
    expect((await models.listBans('app1', 'g', FIRST, 10)).total).toBe(0);
    const after = await dump(db);
    await applyAll(models, deleted);
    expect(await dump(db)).toEqual(after);

    const rebuilt = freshModels();
    await applyAll(rebuilt.models, deleted);
    expect(await dump(rebuilt.db)).toEqual(after);
  });
});
