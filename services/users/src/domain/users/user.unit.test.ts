import { ApiError } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import { MAX_AUTH_TOKENS_PER_USER, userDecider } from './user.js';
import type { UserEvent, UserProfile } from './user.js';

const spec = specFor(userDecider);
const refusedWith = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;
const profile: UserProfile = { uid: 'ann', name: 'Ann', role: 'default', tags: [] };
const created: UserEvent = { type: 'UserCreated', data: { ...profile, createdAt: 10 } };
const token = (tokenId: string, createdAt = 10): UserEvent => ({ type: 'AuthTokenCreated', data: { uid: 'ann', tokenId, createdAt } });
const deactivated: UserEvent = { type: 'UserDeactivated', data: { uid: 'ann', deactivatedAt: 20 } };
const softDeleted: UserEvent = { type: 'UserDeleted', data: { uid: 'ann', permanent: false, deletedAt: 30 } };
const hardDeleted: UserEvent = { type: 'UserDeleted', data: { uid: 'ann', permanent: true, deletedAt: 30 } };
const blocked = (...uids: string[]): UserEvent => ({ type: 'UsersBlocked', data: { uid: 'ann', blockedUids: uids, blockedAt: 15 } });

describe('user decider', () => {
  describe('create', () => {
    it('creates a new uid, with a token when asked', () => {
      spec.given([]).when({ type: 'CreateUser', profile, now: 10 }).then([created]);
      spec.given([]).when({ type: 'CreateUser', profile, authToken: { tokenId: 't1' }, now: 10 }).then([created, token('t1')]);
    });

    it('refuses a uid that exists, is deactivated or soft-deleted', () => {
      for (const history of [[created], [created, deactivated], [created, softDeleted]]) {
        spec.given(history).when({ type: 'CreateUser', profile, now: 11 }).thenThrows(refusedWith('ERR_UID_ALREADY_EXISTS'));
      }
    });

    it('allows the uid again after a permanent delete', () => {
      spec.given([created, hardDeleted]).when({ type: 'CreateUser', profile, now: 40 }).then([{ type: 'UserCreated', data: { ...profile, createdAt: 40 } }]);
    });
  });

  describe('update', () => {
    it('publishes the changes and the removed fields; an empty update changes nothing', () => {
      spec
        .given([created])
        .when({ type: 'UpdateUser', uid: 'ann', changes: { name: 'Anna' }, removed: ['avatar'], now: 12 })
        .then([{ type: 'UserUpdated', data: { uid: 'ann', changes: { name: 'Anna' }, removed: ['avatar'], updatedAt: 12 } }]);
      spec.given([created]).when({ type: 'UpdateUser', uid: 'ann', changes: {}, removed: [], now: 12 }).thenNothingHappens();
    });

    it('refuses unknown, deactivated and deleted users', () => {
      for (const history of [[], [created, deactivated], [created, softDeleted]]) {
        spec.given(history).when({ type: 'UpdateUser', uid: 'ann', changes: { name: 'x' }, removed: [], now: 12 }).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
      }
    });
  });

  describe('deactivate and reactivate', () => {
    it('deactivates an active user once', () => {
      spec.given([created]).when({ type: 'DeactivateUser', uid: 'ann', now: 20 }).then([deactivated]);
      spec.given([created, deactivated]).when({ type: 'DeactivateUser', uid: 'ann', now: 21 }).thenNothingHappens();
    });

    it('reactivates a deactivated user only', () => {
      spec.given([created, deactivated]).when({ type: 'ReactivateUser', uid: 'ann', now: 22 }).then([{ type: 'UserReactivated', data: { uid: 'ann', reactivatedAt: 22 } }]);
      spec.given([created]).when({ type: 'ReactivateUser', uid: 'ann', now: 22 }).thenNothingHappens();
      spec.given([created, softDeleted]).when({ type: 'ReactivateUser', uid: 'ann', now: 22 }).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
      spec.given([]).when({ type: 'DeactivateUser', uid: 'ann', now: 22 }).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
    });
  });

  describe('delete', () => {
    it('revokes tokens, ends friendships and blocks, then deletes', () => {
      spec
        .given([created, token('t1'), blocked('bob')])
        .when({ type: 'DeleteUser', uid: 'ann', permanent: true, friendUids: ['cat'], now: 30 })
        .then([
          { type: 'AuthTokensRevoked', data: { uid: 'ann', tokenIds: ['t1'], reason: 'userDeleted', revokedAt: 30 } },
          { type: 'FriendsRemoved', data: { uid: 'ann', friendUids: ['cat'], removedAt: 30 } },
          { type: 'UsersUnblocked', data: { uid: 'ann', unblockedUids: ['bob'], unblockedAt: 30 } },
          hardDeleted,
        ]);
    });

    it('deletes a deactivated user; a soft-deleted one only permanently', () => {
      spec.given([created, deactivated]).when({ type: 'DeleteUser', uid: 'ann', permanent: false, friendUids: [], now: 30 }).then([softDeleted]);
      spec.given([created, softDeleted]).when({ type: 'DeleteUser', uid: 'ann', permanent: false, friendUids: [], now: 31 }).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
      spec.given([created, softDeleted]).when({ type: 'DeleteUser', uid: 'ann', permanent: true, friendUids: [], now: 30 }).then([hardDeleted]);
      spec.given([]).when({ type: 'DeleteUser', uid: 'ann', permanent: true, friendUids: [], now: 30 }).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
    });
  });

  describe('auth tokens', () => {
    it('issues a token for an active user only', () => {
      spec.given([created]).when({ type: 'CreateAuthToken', uid: 'ann', authToken: { tokenId: 't2', platform: 'ios' }, now: 10 }).then([
        { type: 'AuthTokenCreated', data: { uid: 'ann', tokenId: 't2', platform: 'ios', createdAt: 10 } },
      ]);
      spec.given([created, deactivated]).when({ type: 'CreateAuthToken', uid: 'ann', authToken: { tokenId: 't2' }, now: 10 }).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
    });

    it(`retires the oldest token beyond ${MAX_AUTH_TOKENS_PER_USER}`, () => {
      const full = Array.from({ length: MAX_AUTH_TOKENS_PER_USER }, (_, i) => token(`t${i}`));
      spec.given([created, ...full]).when({ type: 'CreateAuthToken', uid: 'ann', authToken: { tokenId: 'new' }, now: 10 }).then([
        { type: 'AuthTokensRevoked', data: { uid: 'ann', tokenIds: ['t0'], reason: 'limit', revokedAt: 10 } },
        token('new'),
      ]);
    });

    it('updates and deletes known tokens only; flushing revokes every live token', () => {
      spec.given([created, token('t1')]).when({ type: 'UpdateAuthToken', uid: 'ann', tokenId: 't1', details: { platform: 'web' }, now: 11 }).then([
        { type: 'AuthTokenUpdated', data: { uid: 'ann', tokenId: 't1', platform: 'web', updatedAt: 11 } },
      ]);
      spec.given([created, token('t1')]).when({ type: 'DeleteAuthToken', uid: 'ann', tokenId: 'zz', now: 11 }).thenThrows(refusedWith('ERR_AUTH_TOKEN_NOT_FOUND'));
      spec.given([created, token('t1'), token('t2')]).when({ type: 'DeleteAuthToken', uid: 'ann', tokenId: 't1', now: 11 }).then([
        { type: 'AuthTokensRevoked', data: { uid: 'ann', tokenIds: ['t1'], reason: 'deleted', revokedAt: 11 } },
      ]);
      spec.given([created, token('t1'), token('t2')]).when({ type: 'FlushAuthTokens', uid: 'ann', now: 12 }).then([
        { type: 'AuthTokensRevoked', data: { uid: 'ann', tokenIds: ['t1', 't2'], reason: 'flushed', revokedAt: 12 } },
      ]);
      spec.given([created]).when({ type: 'FlushAuthTokens', uid: 'ann', now: 12 }).thenNothingHappens();
    });
  });

  describe('friends and blocks', () => {
    it('adds friends, refuses oneself, and does nothing for an empty list', () => {
      spec.given([created]).when({ type: 'AddFriends', uid: 'ann', friendUids: ['bob'], now: 13 }).then([
        { type: 'FriendsAdded', data: { uid: 'ann', friendUids: ['bob'], addedAt: 13 } },
      ]);
      spec.given([created]).when({ type: 'AddFriends', uid: 'ann', friendUids: ['ann'], now: 13 }).thenThrows(refusedWith('ERR_CANNOT_FORM_SELF_RELATION'));
      spec.given([created]).when({ type: 'AddFriends', uid: 'ann', friendUids: [], now: 13 }).thenNothingHappens();
      spec.given([created]).when({ type: 'RemoveFriends', uid: 'ann', friendUids: [], now: 13 }).thenNothingHappens();
    });

    it('blocks only users not yet blocked, refuses oneself; unblocks only blocked users', () => {
      spec.given([created, blocked('bob')]).when({ type: 'BlockUsers', uid: 'ann', targets: ['bob', 'cat', 'cat'], now: 15 }).then([blocked('cat')]);
      spec.given([created]).when({ type: 'BlockUsers', uid: 'ann', targets: ['ann'], now: 15 }).thenThrows(refusedWith('ERR_CANNOT_BLOCK_SELF'));
      spec.given([created, blocked('bob')]).when({ type: 'BlockUsers', uid: 'ann', targets: ['bob'], now: 15 }).thenNothingHappens();
      spec.given([created, blocked('bob')]).when({ type: 'UnblockUsers', uid: 'ann', targets: ['bob', 'cat'], now: 16 }).then([
        { type: 'UsersUnblocked', data: { uid: 'ann', unblockedUids: ['bob'], unblockedAt: 16 } },
      ]);
      spec.given([created]).when({ type: 'UnblockUsers', uid: 'ann', targets: ['bob'], now: 16 }).thenNothingHappens();
    });
  });
});
