import { USERS_IMPORTED, unpackUsersImported } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { packImportedUsers } from './eventPacking.js';
import { recordHeaders } from './recordSelector.js';

const imported = (uid: string, appId = 'app1'): EventEnvelope => ({
  ...testEnvelope('UserCreated', `user:${appId}:${uid}`, 1, { uid, name: uid, role: 'default', tags: [], createdAt: 1, imported: true }),
  appId,
});
const created = (uid: string): EventEnvelope => testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid, role: 'default', tags: [], createdAt: 1 });
const updated = (uid: string, version = 2): EventEnvelope =>
  testEnvelope('UserUpdated', `user:app1:${uid}`, version, { uid, changes: { name: 'x' }, removed: [], updatedAt: 2 });

/** Partitions by the uid's first letter: a… on 0, b… on 1, anything else on 2. */
const byLetter = (key: string): number => ({ a: 0, b: 1 })[key.split(':')[2]![0] as 'a' | 'b'] ?? 2;

/** What each record carries, by uid (`[a1, a2]` for a pack), in produce order. */
function shape(events: readonly EventEnvelope[]): Array<string | string[]> {
  return packImportedUsers(events, byLetter).map(({ event }) =>
    event.type === USERS_IMPORTED ? unpackUsersImported(event)!.map((e) => (e.data as { uid: string }).uid) : (event.data as { uid: string }).uid,
  );
}

describe('packImportedUsers', () => {
  it('packs the imported users of a partition into one record, unchanged and in order, at the first one\'s place', () => {
    const events = [imported('a1'), imported('b1'), imported('a2'), imported('c1'), imported('b2')];
    const units = packImportedUsers(events, byLetter);
    expect(shape(events)).toEqual([['a1', 'a2'], ['b1', 'b2'], 'c1']);
    expect(unpackUsersImported(units[0]!.event)).toEqual([events[0], events[2]]);
    expect(units[0]!.event.streamId).toBe('user:app1:a1');
    expect(units[0]!.packedType).toBe('UserCreated');
    expect(units[2]!.event).toBe(events[3]);
    expect(units.map((u) => u.members)).toEqual([[0, 2], [1, 4], [3]]);
  });

  it('closes a partition\'s pack at any other event of that partition, so nothing there changes order', () => {
    // a2's update must follow a2's creation; a3, imported after the update, goes after it too.
    expect(shape([imported('a1'), imported('a2'), updated('a2'), imported('a3'), imported('a4'), imported('b1'), updated('b9'), imported('b2')])).toEqual([
      ['a1', 'a2'],
      'a2',
      ['a3', 'a4'],
      'b1',
      'b9',
      'b2',
    ]);
  });

  it('never packs a creation that is not an import, nor users of different apps or keys', () => {
    const otherKey = { ...imported('a3'), actor: { keyId: 'other', scope: 'fullAccess' } };
    expect(shape([created('a1'), created('a2'), imported('a5'), imported('a6', 'app2'), otherKey, imported('a7')])).toEqual(['a1', 'a2', ['a5', 'a7'], 'a6', 'a3']);
  });
});

describe('recordHeaders of a pack', () => {
  it('judges a UsersImported record as the type it carries, so selectors keep or skip it as that type', () => {
    const message = { key: null, value: null, offset: '0', timestamp: '1', attributes: 0, headers: { type: 'UsersImported', packedType: 'UserCreated', appId: 'app1', keyId: 'k' } };
    expect(recordHeaders('chat.users.events', message)).toMatchObject({ type: 'UserCreated', appId: 'app1', keyId: 'k' });
    expect(recordHeaders('chat.users.events', { ...message, headers: { type: 'UserUpdated' } }).type).toBe('UserUpdated');
  });
});
