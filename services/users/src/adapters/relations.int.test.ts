import { randomBytes } from 'node:crypto';
import { indexSearchedBy } from '@chat/mongo/testing';
import { MongoClient } from 'mongodb';
import type { CommandStartedEvent, Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserReadModels } from './readModels.js';

// A user's friends and blocks are read on every list of them: through the app's owner index on
// FerretDB, never a scan of every app's edges (ADR 0076 addendum).
describe("a user's relations on FerretDB", () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017', { monitorCommands: true });
  const db = client.db(`relations_int_${randomBytes(4).toString('hex')}`);
  const models = new UserReadModels(db);

  beforeAll(async () => {
    await client.connect();
    await models.ensureIndexes();
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('lists the live edges of one owner through app_owner_live', async () => {
    const edge = (appId: string, owner: string, other: string, active: boolean) => ({
      _id: `${appId}:${owner}:${other}`,
      appId,
      owner,
      other,
      active,
      since: 1,
      changedAt: '2026-11-29T00:00:00.000Z',
    });
    for (const kind of ['friends', 'blocks'] as const) {
      await db.collection(kind).insertMany([edge('app1', 'ann', 'cy', true), edge('app1', 'ann', 'bob', true), edge('app1', 'ann', 'dan', false), edge('app2', 'ann', 'eve', true), edge('app1', 'bob', 'ann', true)] as never[]);
    }
    for (const kind of ['friends', 'blocks'] as const) {
      const filters: Document[] = [];
      const listener = (event: CommandStartedEvent) => {
        if (event.commandName === 'find' && event.command['find'] === kind) filters.push(event.command['filter'] as Document);
      };
      client.on('commandStarted', listener);
      let others: string[] = [];
      try {
        others = (await models.relationsOf(kind, 'app1', 'ann')).map((r) => r.other);
      } finally {
        client.off('commandStarted', listener);
      }
      expect(others).toEqual(['bob', 'cy']);
      expect(filters).toHaveLength(1);
      expect(await indexSearchedBy(db, kind, filters[0] ?? {})).toMatch(/app_owner_live/);
    }
  });
});
