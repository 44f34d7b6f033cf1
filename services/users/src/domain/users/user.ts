import { ApiError } from '@chat/contracts';
import type {
  AuthTokenCreated,
  AuthTokensRevoked,
  AuthTokenUpdated,
  FriendsAdded,
  FriendsRemoved,
  UserCreated,
  UserDeactivated,
  UserDeleted,
  UserReactivated,
  UsersBlocked,
  UsersUnblocked,
  UserUpdated,
} from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';

export type UserProfile = Omit<UserCreated, 'createdAt'>;
export type ProfileChanges = UserUpdated['changes'];
export type RemovableProfileField = UserUpdated['removed'][number];
export type TokenDetails = Omit<AuthTokenUpdated, 'uid' | 'tokenId' | 'updatedAt'>;

export interface NewAuthToken {
  tokenId: string;
  tokenHint?: string;
  platform?: string;
  deviceId?: string;
}

/** CometChat keeps at most 100 active tokens per user; creating one more retires the oldest. */
export const MAX_AUTH_TOKENS_PER_USER = 100;

export type UserCommand =
  | { type: 'CreateUser'; profile: UserProfile; authToken?: NewAuthToken; now: number }
  /** A user from a data import, with the caller's times; an existing uid makes it a no-op (reruns). */
  | { type: 'ImportUser'; profile: UserProfile; createdAt: number; lastActiveAt?: number; deactivatedAt?: number }
  | { type: 'UpdateUser'; uid: string; changes: ProfileChanges; removed: RemovableProfileField[]; now: number }
  | { type: 'DeactivateUser'; uid: string; now: number }
  | { type: 'ReactivateUser'; uid: string; now: number }
  /** `friendUids`: the user's current friends, gathered from the read model, whose friendships end too. */
  | { type: 'DeleteUser'; uid: string; permanent: boolean; friendUids: string[]; now: number }
  | { type: 'CreateAuthToken'; uid: string; authToken: NewAuthToken; now: number }
  | { type: 'UpdateAuthToken'; uid: string; tokenId: string; details: TokenDetails; now: number }
  | { type: 'DeleteAuthToken'; uid: string; tokenId: string; now: number }
  | { type: 'FlushAuthTokens'; uid: string; now: number }
  /** `friendUids` are existing, active users that are not yet friends (checked by the caller). */
  | { type: 'AddFriends'; uid: string; friendUids: string[]; now: number }
  /** `friendUids` are the current friends among those the client named. */
  | { type: 'RemoveFriends'; uid: string; friendUids: string[]; now: number }
  | { type: 'BlockUsers'; uid: string; targets: string[]; now: number }
  | { type: 'UnblockUsers'; uid: string; targets: string[]; now: number };

export type UserEvent =
  | DomainEvent<'UserCreated', UserCreated>
  | DomainEvent<'UserUpdated', UserUpdated>
  | DomainEvent<'UserDeactivated', UserDeactivated>
  | DomainEvent<'UserReactivated', UserReactivated>
  | DomainEvent<'UserDeleted', UserDeleted>
  | DomainEvent<'AuthTokenCreated', AuthTokenCreated>
  | DomainEvent<'AuthTokenUpdated', AuthTokenUpdated>
  | DomainEvent<'AuthTokensRevoked', AuthTokensRevoked>
  | DomainEvent<'FriendsAdded', FriendsAdded>
  | DomainEvent<'FriendsRemoved', FriendsRemoved>
  | DomainEvent<'UsersBlocked', UsersBlocked>
  | DomainEvent<'UsersUnblocked', UsersUnblocked>;

/**
 * One stream per (app, uid): creating the same uid twice collides on the stream, also in a race.
 * `deleted` is CometChat's soft delete: gone from the API, uid still taken. A permanent delete
 * returns the stream to `absent`, so the uid can be created again.
 */
export type Lifecycle = 'absent' | 'active' | 'deactivated' | 'deleted';

export interface UserState {
  lifecycle: Lifecycle;
  /** Live token fingerprints, oldest first. */
  tokens: string[];
  /** Uids this user has blocked. */
  blocked: string[];
}

function notFound(uid: string): ApiError {
  return new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${uid} does not exist.`);
}

function requireActive(state: UserState, uid: string): void {
  if (state.lifecycle !== 'active') throw notFound(uid);
}

function tokenNotFound(uid: string): ApiError {
  return new ApiError('ERR_AUTH_TOKEN_NOT_FOUND', `The auth token does not exist for the user with uid ${uid}.`);
}

function issueToken(state: UserState, uid: string, token: NewAuthToken, now: number): UserEvent[] {
  const events: UserEvent[] = [];
  const excess = state.tokens.length + 1 - MAX_AUTH_TOKENS_PER_USER;
  if (excess > 0) {
    events.push({ type: 'AuthTokensRevoked', data: { uid, tokenIds: state.tokens.slice(0, excess), reason: 'limit', revokedAt: now } });
  }
  events.push({
    type: 'AuthTokenCreated',
    data: {
      uid,
      tokenId: token.tokenId,
      ...(token.platform !== undefined ? { platform: token.platform } : {}),
      ...(token.deviceId !== undefined ? { deviceId: token.deviceId } : {}),
      ...(token.tokenHint !== undefined ? { tokenHint: token.tokenHint } : {}),
      createdAt: now,
    },
  });
  return events;
}

function isEmptyChange(changes: ProfileChanges, removed: readonly string[]): boolean {
  return removed.length === 0 && Object.values(changes).every((value) => value === undefined);
}

function deleteUser(command: Extract<UserCommand, { type: 'DeleteUser' }>, state: UserState): UserEvent[] {
  const { uid, now } = command;
  const softDeletedAgain = state.lifecycle === 'deleted' && !command.permanent;
  if (state.lifecycle === 'absent' || softDeletedAgain) throw notFound(uid);
  const events: UserEvent[] = [];
  if (state.tokens.length > 0) {
    events.push({ type: 'AuthTokensRevoked', data: { uid, tokenIds: state.tokens, reason: 'userDeleted', revokedAt: now } });
  }
  if (command.friendUids.length > 0) {
    events.push({ type: 'FriendsRemoved', data: { uid, friendUids: command.friendUids, removedAt: now } });
  }
  if (state.blocked.length > 0) {
    events.push({ type: 'UsersUnblocked', data: { uid, unblockedUids: state.blocked, unblockedAt: now } });
  }
  events.push({ type: 'UserDeleted', data: { uid, permanent: command.permanent, deletedAt: now } });
  return events;
}

function decide(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'CreateUser': {
      const { uid } = command.profile;
      if (state.lifecycle !== 'absent') throw new ApiError('ERR_UID_ALREADY_EXISTS', `A user with uid ${uid} already exists.`);
      const created: UserEvent = { type: 'UserCreated', data: { ...command.profile, createdAt: command.now } };
      return command.authToken ? [created, ...issueToken(state, uid, command.authToken, command.now)] : [created];
    }
    case 'ImportUser': {
      if (state.lifecycle !== 'absent') return [];
      const { profile, createdAt, lastActiveAt, deactivatedAt } = command;
      const created: UserEvent = {
        type: 'UserCreated',
        data: { ...profile, createdAt, imported: true, ...(lastActiveAt !== undefined ? { lastActiveAt } : {}) },
      };
      return deactivatedAt === undefined ? [created] : [created, { type: 'UserDeactivated', data: { uid: profile.uid, deactivatedAt } }];
    }
    case 'UpdateUser': {
      requireActive(state, command.uid);
      if (isEmptyChange(command.changes, command.removed)) return [];
      return [{ type: 'UserUpdated', data: { uid: command.uid, changes: command.changes, removed: command.removed, updatedAt: command.now } }];
    }
    case 'DeactivateUser': {
      if (state.lifecycle === 'deactivated') return [];
      requireActive(state, command.uid);
      return [{ type: 'UserDeactivated', data: { uid: command.uid, deactivatedAt: command.now } }];
    }
    case 'ReactivateUser': {
      if (state.lifecycle === 'active') return [];
      if (state.lifecycle !== 'deactivated') throw notFound(command.uid);
      return [{ type: 'UserReactivated', data: { uid: command.uid, reactivatedAt: command.now } }];
    }
    case 'DeleteUser':
      return deleteUser(command, state);
    case 'CreateAuthToken':
      requireActive(state, command.uid);
      return issueToken(state, command.uid, command.authToken, command.now);
    case 'UpdateAuthToken':
      requireActive(state, command.uid);
      if (!state.tokens.includes(command.tokenId)) throw tokenNotFound(command.uid);
      return [{ type: 'AuthTokenUpdated', data: { uid: command.uid, tokenId: command.tokenId, ...command.details, updatedAt: command.now } }];
    case 'DeleteAuthToken':
      requireActive(state, command.uid);
      if (!state.tokens.includes(command.tokenId)) throw tokenNotFound(command.uid);
      return [{ type: 'AuthTokensRevoked', data: { uid: command.uid, tokenIds: [command.tokenId], reason: 'deleted', revokedAt: command.now } }];
    case 'FlushAuthTokens':
      requireActive(state, command.uid);
      if (state.tokens.length === 0) return [];
      return [{ type: 'AuthTokensRevoked', data: { uid: command.uid, tokenIds: state.tokens, reason: 'flushed', revokedAt: command.now } }];
    case 'AddFriends': {
      requireActive(state, command.uid);
      if (command.friendUids.includes(command.uid)) {
        throw new ApiError('ERR_CANNOT_FORM_SELF_RELATION', 'A user cannot be their own friend.');
      }
      if (command.friendUids.length === 0) return [];
      return [{ type: 'FriendsAdded', data: { uid: command.uid, friendUids: command.friendUids, addedAt: command.now } }];
    }
    case 'RemoveFriends':
      requireActive(state, command.uid);
      if (command.friendUids.length === 0) return [];
      return [{ type: 'FriendsRemoved', data: { uid: command.uid, friendUids: command.friendUids, removedAt: command.now } }];
    case 'BlockUsers': {
      requireActive(state, command.uid);
      if (command.targets.includes(command.uid)) throw new ApiError('ERR_CANNOT_BLOCK_SELF', 'A user cannot block themselves.');
      const fresh = [...new Set(command.targets)].filter((target) => !state.blocked.includes(target));
      if (fresh.length === 0) return [];
      return [{ type: 'UsersBlocked', data: { uid: command.uid, blockedUids: fresh, blockedAt: command.now } }];
    }
    case 'UnblockUsers': {
      requireActive(state, command.uid);
      const blocked = [...new Set(command.targets)].filter((target) => state.blocked.includes(target));
      if (blocked.length === 0) return [];
      return [{ type: 'UsersUnblocked', data: { uid: command.uid, unblockedUids: blocked, unblockedAt: command.now } }];
    }
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
}

const initialState = (): UserState => ({ lifecycle: 'absent', tokens: [], blocked: [] });

function evolve(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserCreated':
      return { ...initialState(), lifecycle: 'active' };
    case 'UserUpdated':
    case 'AuthTokenUpdated':
    case 'FriendsAdded':
    case 'FriendsRemoved':
      return state;
    case 'UserDeactivated':
      return { ...state, lifecycle: 'deactivated' };
    case 'UserReactivated':
      return { ...state, lifecycle: 'active' };
    case 'UserDeleted':
      return event.data.permanent ? initialState() : { ...initialState(), lifecycle: 'deleted' };
    case 'AuthTokenCreated':
      return { ...state, tokens: [...state.tokens, event.data.tokenId] };
    case 'AuthTokensRevoked': {
      const revoked = new Set(event.data.tokenIds);
      return { ...state, tokens: state.tokens.filter((id) => !revoked.has(id)) };
    }
    case 'UsersBlocked':
      return { ...state, blocked: [...state.blocked, ...event.data.blockedUids] };
    case 'UsersUnblocked': {
      const unblocked = new Set(event.data.unblockedUids);
      return { ...state, blocked: state.blocked.filter((uid) => !unblocked.has(uid)) };
    }
    default: {
      const unreachable: never = event;
      throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState,
  decide,
  evolve,
  snapshotVersion: 2,
};

export function userStream(appId: string, uid: string): string {
  return `user:${appId}:${uid}`;
}
