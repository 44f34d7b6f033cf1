import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../envelope.js';
import { isPackableEvent, unpackUsersImported, usersImportedRecord } from './eventPacks.js';

const created = (uid: string, imported: boolean): EventEnvelope => ({
  id: `e-${uid}`,
  type: 'UserCreated',
  schemaVersion: 1,
  appId: 'app1',
  streamId: `user:app1:${uid}`,
  version: 1,
  occurredAt: '2026-11-30T10:00:00.000Z',
  actor: { keyId: 'k', scope: 'fullAccess' },
  correlationId: 'req-1',
  causationId: null,
  data: { uid, name: uid, role: 'default', tags: [], createdAt: 1, ...(imported ? { imported: true } : {}) },
});

describe('UsersImported records (ADR 0111)', () => {
  it('packs only imported creations, and unpacks to the very envelopes packed, in order', () => {
    expect(isPackableEvent(created('a', true))).toBe(true);
    expect(isPackableEvent(created('a', false))).toBe(false);
    expect(isPackableEvent({ type: 'UserUpdated', data: { imported: true } })).toBe(false);
    const events = [created('a', true), created('b', true)];
    const record = usersImportedRecord(events);
    expect(record).toMatchObject({ type: 'UsersImported', schemaVersion: 1, streamId: 'user:app1:a', appId: 'app1', id: 'e-a:pack' });
    expect(unpackUsersImported(JSON.parse(JSON.stringify(record)) as EventEnvelope)).toEqual(events);
  });

  it('answers null for a record that is not a pack of this version', () => {
    expect(unpackUsersImported(created('a', true))).toBeNull();
    expect(unpackUsersImported({ ...usersImportedRecord([created('a', true)]), schemaVersion: 2 })).toBeNull();
    expect(unpackUsersImported({ ...usersImportedRecord([created('a', true)]), data: { events: [] } })).toBeNull();
  });
});
