import { testEnvelope } from '@chat/eventsourcing/testing';
import { InMemoryDocumentStore, ProjectionRuntime } from '@chat/mongo';
import { describe, expect, it, vi } from 'vitest';
import { blocksProjection, knownUsersProjection, userDocId } from './users.js';
import type { BlocksDoc } from './users.js';

describe('blocks read model', () => {
  it('writes a block on both sides, and an unblock lifts only its own direction', () => {
    const docs = new Map<string, BlocksDoc>();
    const apply = (event: ReturnType<typeof testEnvelope>) => {
      for (const id of blocksProjection.documentIds(event as never)) {
        const next = blocksProjection.evolve(docs.get(id) ?? null, event as never, id);
        if (next) docs.set(id, next);
      }
    };
    apply(testEnvelope('UsersBlocked', 'user:app1:ann', 2, { uid: 'ann', blockedUids: ['ben', 'cat'], blockedAt: 1 }));
    apply(testEnvelope('UsersBlocked', 'user:app1:ben', 2, { uid: 'ben', blockedUids: ['ann'], blockedAt: 2 }));
    apply(testEnvelope('UsersUnblocked', 'user:app1:ann', 3, { uid: 'ann', unblockedUids: ['ben'], unblockedAt: 3 }));
    expect(docs.get(userDocId('app1', 'ann'))).toEqual({ appId: 'app1', uid: 'ann', blocked: ['cat'], blockedBy: ['ben'] });
    expect(docs.get(userDocId('app1', 'ben'))).toEqual({ appId: 'app1', uid: 'ben', blocked: ['ann'], blockedBy: [] });
    expect(docs.get(userDocId('app1', 'cat'))).toEqual({ appId: 'app1', uid: 'cat', blocked: [], blockedBy: ['ann'] });
  });
});

describe('known users read model', () => {
  const created = testEnvelope('UserCreated', 'user:app1:ann', 1, { uid: 'ann', name: 'Ann', role: 'default', tags: [], createdAt: 1 });

  it('inserts a created user without reading it first, and a redelivered creation changes nothing', async () => {
    const store = new InMemoryDocumentStore();
    const findMany = vi.spyOn(store, 'findMany');
    await new ProjectionRuntime(knownUsersProjection, store).apply([created]);
    expect(findMany.mock.calls.flatMap(([ids]) => ids)).toEqual([]);
    const first = store.stored();
    expect(first).toMatchObject([{ _id: userDocId('app1', 'ann'), appId: 'app1', uid: 'ann', _rev: 1 }]);

    // Another process (no memory of the write): the insert fails, the read shows the event applied.
    await new ProjectionRuntime(knownUsersProjection, store).apply([created]);
    expect(findMany.mock.calls.flatMap(([ids]) => ids)).toEqual([userDocId('app1', 'ann')]);
    expect(store.stored()).toEqual(first);
  });
});
