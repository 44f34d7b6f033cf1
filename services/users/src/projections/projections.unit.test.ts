import type { EventEnvelope } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { authTokensProjection } from './authTokens.js';
import { blocksProjection, friendsProjection } from './relations.js';
import { rolesProjection } from './roles.js';
import { usersProjection } from './users.js';

type Store = Map<string, { doc: object; positions: Record<string, number> }>;

/** The guarded writer's logic over a map: what GuardedProjectionWriter does against MongoDB. */
function applyAll(projection: Projection<object>, events: readonly EventEnvelope[], store: Store = new Map()): Store {
  for (const event of events) {
    if (!projection.canHandle(event)) continue;
    for (const id of projection.documentIds(event)) {
      const current = store.get(id);
      const source = projection.sourceOf(event, id);
      if ((current?.positions[source] ?? 0) >= event.version) continue;
      const next = projection.evolve(current?.doc ?? null, event, id);
      if (next) store.set(id, { doc: next, positions: { ...current?.positions, [source]: event.version } });
      else store.delete(id);
    }
  }
  return store;
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

function docOf(store: Store, id: string): Record<string, unknown> | undefined {
  return store.get(id)?.doc as Record<string, unknown> | undefined;
}

describe('users projection', () => {
  const projection = usersProjection as unknown as Projection<object>;

  it('follows a user through update, deactivation and reactivation', () => {
    const store = applyAll(projection, userHistory);
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
    });
  });

  it('is unchanged by redelivery, and a late redelivered creation cannot revive a deleted user', () => {
    const deleted = [...userHistory, ann(8, 'UserDeleted', { permanent: false, deletedAt: 16 })];
    const once = applyAll(projection, deleted);
    expect(docOf(once, 'app1:ann')).toMatchObject({ state: 'deleted', name: '' });
    expect(applyAll(projection, deleted, structuredClone(once))).toEqual(once);
    expect(applyAll(projection, [userHistory[0]!], structuredClone(once))).toEqual(once);
  });

  it('takes a user created again after a permanent delete', () => {
    const reborn = [...userHistory, ann(8, 'UserDeleted', { permanent: true, deletedAt: 16 }), ann(9, 'UserCreated', { name: 'New', role: 'default', tags: [], createdAt: 17 })];
    expect(docOf(applyAll(projection, reborn), 'app1:ann')).toMatchObject({ name: 'New', state: 'active', createdAt: 17 });
  });
});

describe('auth tokens projection', () => {
  const projection = authTokensProjection as unknown as Projection<object>;

  it('keeps fingerprints and device details; revocation leaves a tombstone that redelivery cannot revive', () => {
    const store = applyAll(projection, userHistory);
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
    expect(applyAll(projection, userHistory, structuredClone(store))).toEqual(store);
  });
});

describe('friends projection', () => {
  const projection = friendsProjection as unknown as Projection<object>;
  const history = [
    event('user:app1:ann', 3, 'FriendsAdded', { uid: 'ann', friendUids: ['bob', 'cat'], addedAt: 20 }),
    event('user:app1:bob', 5, 'FriendsRemoved', { uid: 'bob', friendUids: ['ann'], removedAt: 21 }),
  ];

  it('writes both directions; a removal from the other side ends both', () => {
    const store = applyAll(projection, history);
    expect(docOf(store, 'app1:ann:bob')).toMatchObject({ owner: 'ann', other: 'bob', active: false });
    expect(docOf(store, 'app1:bob:ann')).toMatchObject({ owner: 'bob', other: 'ann', active: false });
    expect(docOf(store, 'app1:cat:ann')).toMatchObject({ owner: 'cat', other: 'ann', active: true, since: 20 });
  });

  it('gives the same documents on redelivery and on a replay in the other order', () => {
    const live = applyAll(projection, history);
    expect(applyAll(projection, history, structuredClone(live))).toEqual(live);
    expect(applyAll(projection, [...history].reverse())).toEqual(live);
  });
});

describe('blocks projection', () => {
  const projection = blocksProjection as unknown as Projection<object>;
  const history = [
    event('user:app1:ann', 2, 'UsersBlocked', { uid: 'ann', blockedUids: ['bob', 'cat'], blockedAt: 30 }),
    event('user:app1:ann', 3, 'UsersUnblocked', { uid: 'ann', unblockedUids: ['cat'], unblockedAt: 31 }),
  ];

  it('keeps one edge per blocked user and is unchanged by redelivery', () => {
    const store = applyAll(projection, history);
    expect(docOf(store, 'app1:ann:bob')).toMatchObject({ owner: 'ann', other: 'bob', active: true, since: 30 });
    expect(docOf(store, 'app1:ann:cat')).toMatchObject({ active: false });
    expect(applyAll(projection, history, structuredClone(store))).toEqual(store);
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

  it('keeps permissions as text (ids contain dots) and restricted features with their time', () => {
    const store = applyAll(projection, history);
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
    expect(applyAll(projection, history, structuredClone(store))).toEqual(store);
  });

  it('marks a deleted role and starts afresh when it is created again', () => {
    const deleted = [...history, roles(7, 'RoleDeleted', { deletedAt: 46 })];
    expect(docOf(applyAll(projection, deleted), 'app1:mod')).toMatchObject({ deleted: true });
    const again = [...deleted, roles(8, 'RoleCreated', { name: 'Mod2', createdAt: 47 })];
    expect(docOf(applyAll(projection, again), 'app1:mod')).toMatchObject({ deleted: false, name: 'Mod2', permissions: '{}', restricted: [] });
  });
});
