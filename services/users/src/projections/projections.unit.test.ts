import type { EventEnvelope } from '@chat/contracts';
import { applyInMemory } from '@chat/mongo';
import type { InMemoryDocumentStore, Projection } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { authTokensProjection } from './users/authTokens.js';
import { blocksProjection, friendsProjection } from './relations/relations.js';
import { rolesProjection } from './roles/roles.js';
import { usersProjection } from './users/users.js';

/** The real runtime over an in-memory store, one batch: the same guard and fold as production. */
function applyAll(projection: Projection<object>, events: readonly EventEnvelope[], store?: InMemoryDocumentStore): Promise<InMemoryDocumentStore> {
  return applyInMemory(projection, events, store);
}

let clock = 0;
function event(streamId: string, version: number, type: string, data: Record<string, unknown>): EventEnvelope {
  clock += 1;
  return {
    id: `${streamId}-${version}`,
    type,
    schemaVersion: 1,
    appId: 'app1',
    streamId,
    version,
    occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, clock)).toISOString(),
    actor: { keyId: 'k', scope: 'fullAccess' },
    correlationId: 'c',
    causationId: null,
    data,
  };
}

const ann = (version: number, type: string, data: Record<string, unknown>) => event('user:app1:ann', version, type, { uid: 'ann', ...data });
const userHistory = [
  ann(1, 'UserCreated', { name: 'Ann', role: 'default', tags: ['a'], metadata: { 'x.y': 1 }, avatar: 'https://a', createdAt: 10 }),
  ann(2, 'AuthTokenCreated', { tokenId: 't1', tokenHint: 'abcd', createdAt: 10 }),
  ann(3, 'UserUpdated', { changes: { name: 'Anna', statusMessage: 'hi' }, removed: ['avatar', 'tags'], updatedAt: 11 }),
  ann(4, 'AuthTokenUpdated', { tokenId: 't1', platform: 'ios', appInfo: { v: 1 }, updatedAt: 12 }),
  ann(5, 'UserDeactivated', { deactivatedAt: 13 }),
  ann(6, 'UserReactivated', { reactivatedAt: 14 }),
  ann(7, 'AuthTokensRevoked', { tokenIds: ['t1'], reason: 'flushed', revokedAt: 15 }),
];

function docOf(store: InMemoryDocumentStore, id: string): Record<string, unknown> | undefined {
  return store.document(id);
}

describe('users projection', () => {
  const projection = usersProjection as unknown as Projection<object>;

  it('follows a user through update, deactivation and reactivation', async () => {
    const store = await applyAll(projection, userHistory);
    expect(docOf(store, 'app1:ann')).toEqual({
      appId: 'app1',
      uid: 'ann',
      name: 'Anna',
      sortName: 'anna',
      listKey: `${userHistory[0]!.occurredAt}|ann`,
      role: 'default',
      statusMessage: 'hi',
      metadata: '{"x.y":1}',
      tags: [],
      status: 'offline',
      state: 'active',
      createdAt: 10,
      updatedAt: 14,
      // The last lifecycle event of the stream (its token events are not this projection's).
      version: 6,
    });
  });

  it('is unchanged by redelivery, and a late redelivered creation cannot revive a deleted user', async () => {
    const deleted = [...userHistory, ann(8, 'UserDeleted', { permanent: false, deletedAt: 16 })];
    const once = await applyAll(projection, deleted);
    expect(docOf(once, 'app1:ann')).toMatchObject({ state: 'deleted', name: '' });
    expect((await applyAll(projection, deleted, once.copy())).stored()).toEqual(once.stored());
    expect((await applyAll(projection, [userHistory[0]!], once.copy())).stored()).toEqual(once.stored());
  });

  it('takes a user created again after a permanent delete', async () => {
    const reborn = [...userHistory, ann(8, 'UserDeleted', { permanent: true, deletedAt: 16 }), ann(9, 'UserCreated', { name: 'New', role: 'default', tags: [], createdAt: 17 })];
    expect(docOf(await applyAll(projection, reborn), 'app1:ann')).toMatchObject({ name: 'New', state: 'active', createdAt: 17 });
  });
});

describe('auth tokens projection', () => {
  const projection = authTokensProjection as unknown as Projection<object>;

  it('keeps fingerprints and device details; revocation leaves a tombstone that redelivery cannot revive', async () => {
    const store = await applyAll(projection, userHistory);
    expect(docOf(store, 'app1:t1')).toEqual({
      appId: 'app1',
      uid: 'ann',
      tokenId: 't1',
      tokenHint: 'abcd',
      platform: 'ios',
      appInfo: '{"v":1}',
      createdAt: 10,
      updatedAt: 15,
      revoked: true,
    });
    expect((await applyAll(projection, userHistory, store.copy())).stored()).toEqual(store.stored());
  });
});

describe('friends projection', () => {
  const projection = friendsProjection as unknown as Projection<object>;
  const history = [
    event('user:app1:ann', 3, 'FriendsAdded', { uid: 'ann', friendUids: ['bob', 'cat'], addedAt: 20 }),
    event('user:app1:bob', 5, 'FriendsRemoved', { uid: 'bob', friendUids: ['ann'], removedAt: 21 }),
  ];

  it('writes both directions; a removal from the other side ends both', async () => {
    const store = await applyAll(projection, history);
    expect(docOf(store, 'app1:ann:bob')).toMatchObject({ owner: 'ann', other: 'bob', active: false });
    expect(docOf(store, 'app1:bob:ann')).toMatchObject({ owner: 'bob', other: 'ann', active: false });
    expect(docOf(store, 'app1:cat:ann')).toMatchObject({ owner: 'cat', other: 'ann', active: true, since: 20 });
  });

  it('gives the same documents on redelivery and on a replay in the other order', async () => {
    const live = await applyAll(projection, history);
    expect((await applyAll(projection, history, live.copy())).stored()).toEqual(live.stored());
    expect((await applyAll(projection, [...history].reverse())).stored()).toEqual(live.stored());
  });
});

describe('blocks projection', () => {
  const projection = blocksProjection as unknown as Projection<object>;
  const history = [
    event('user:app1:ann', 2, 'UsersBlocked', { uid: 'ann', blockedUids: ['bob', 'cat'], blockedAt: 30 }),
    event('user:app1:ann', 3, 'UsersUnblocked', { uid: 'ann', unblockedUids: ['cat'], unblockedAt: 31 }),
  ];

  it('keeps one edge per blocked user and is unchanged by redelivery', async () => {
    const store = await applyAll(projection, history);
    expect(docOf(store, 'app1:ann:bob')).toMatchObject({ owner: 'ann', other: 'bob', active: true, since: 30 });
    expect(docOf(store, 'app1:ann:cat')).toMatchObject({ active: false });
    expect((await applyAll(projection, history, store.copy())).stored()).toEqual(store.stored());
  });
});

describe('roles projection', () => {
  const projection = rolesProjection as unknown as Projection<object>;
  const roles = (version: number, type: string, data: Record<string, unknown>) => event('roles:app1', version, type, { role: 'mod', ...data });
  const history = [
    roles(1, 'RoleCreated', { name: 'Mod', description: 'd', settings: { a: 1 }, createdAt: 40 }),
    roles(2, 'RolePermissionsSet', { permissions: { sendMessage: 'deny', 'listUsers.mode': 'friends' }, updatedAt: 41 }),
    roles(3, 'RolePermissionsReset', { permissionIds: ['sendMessage'], updatedAt: 42 }),
    roles(4, 'RoleFeaturesRestricted', { features: ['u.listUsers', 'u.getUser'], restrictedAt: 43 }),
    roles(5, 'RoleFeaturesAllowed', { features: ['u.getUser'], allowedAt: 44 }),
    roles(6, 'RoleUpdated', { changes: { name: 'Moderator' }, removed: ['description'], updatedAt: 45 }),
  ];

  it('keeps permissions as text (ids contain dots) and restricted features with their time', async () => {
    const store = await applyAll(projection, history);
    expect(docOf(store, 'app1:mod')).toEqual({
      appId: 'app1',
      role: 'mod',
      name: 'Moderator',
      settings: '{"a":1}',
      permissions: '{"listUsers.mode":"friends"}',
      restricted: [{ key: 'u.listUsers', createdAt: 43 }],
      deleted: false,
      createdAt: 40,
      updatedAt: 45,
    });
    expect((await applyAll(projection, history, store.copy())).stored()).toEqual(store.stored());
  });

  it('marks a deleted role and starts afresh when it is created again', async () => {
    const deleted = [...history, roles(7, 'RoleDeleted', { deletedAt: 46 })];
    expect(docOf(await applyAll(projection, deleted), 'app1:mod')).toMatchObject({ deleted: true });
    const again = [...deleted, roles(8, 'RoleCreated', { name: 'Mod2', createdAt: 47 })];
    expect(docOf(await applyAll(projection, again), 'app1:mod')).toMatchObject({ deleted: false, name: 'Mod2', permissions: '{}', restricted: [] });
  });
});
