import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import { userDecider } from './user.js';
import type { UserEvent, UserProfile } from './user.js';

const spec = specFor(userDecider);
const profile: UserProfile = { uid: 'ann', name: 'Ann', role: 'default', tags: [] };

describe('user decider: data import', () => {
  it('creates the user with the caller’s times, marked imported, and deactivates it when the record says so', () => {
    spec
      .given([])
      .when({ type: 'ImportUser', profile, createdAt: 100, lastActiveAt: 150 })
      .then([{ type: 'UserCreated', data: { ...profile, createdAt: 100, imported: true, lastActiveAt: 150 } }]);
    spec
      .given([])
      .when({ type: 'ImportUser', profile, createdAt: 100, deactivatedAt: 200 })
      .then([
        { type: 'UserCreated', data: { ...profile, createdAt: 100, imported: true } },
        { type: 'UserDeactivated', data: { uid: 'ann', deactivatedAt: 200 } },
      ]);
  });

  it('changes nothing for a uid that exists, however it was created (a rerun)', () => {
    const created: UserEvent = { type: 'UserCreated', data: { ...profile, createdAt: 10 } };
    const deleted: UserEvent = { type: 'UserDeleted', data: { uid: 'ann', permanent: false, deletedAt: 20 } };
    for (const history of [[created], [created, deleted]]) {
      spec.given(history).when({ type: 'ImportUser', profile: { ...profile, name: 'Other' }, createdAt: 100 }).then([]);
    }
  });
});
