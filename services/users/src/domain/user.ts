import { ApiError } from '@chat/contracts';
import type { AuthTokenCreated, UserCreated } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';

export type UserProfile = Omit<UserCreated, 'createdAt'>;

export interface NewAuthToken {
  tokenId: string;
  platform?: string;
  deviceId?: string;
}

export type UserCommand =
  | { type: 'CreateUser'; profile: UserProfile; authToken?: NewAuthToken; now: number }
  | { type: 'CreateAuthToken'; uid: string; authToken: NewAuthToken; now: number };

export type UserEvent =
  | DomainEvent<'UserCreated', UserCreated>
  | DomainEvent<'AuthTokenCreated', AuthTokenCreated>;

/** One stream per (app, uid): creating the same uid twice collides on the stream, also in a race. */
export interface UserState {
  exists: boolean;
  tokenCount: number;
}

function tokenEvent(uid: string, token: NewAuthToken, now: number): UserEvent {
  return {
    type: 'AuthTokenCreated',
    data: {
      uid,
      tokenId: token.tokenId,
      ...(token.platform !== undefined ? { platform: token.platform } : {}),
      ...(token.deviceId !== undefined ? { deviceId: token.deviceId } : {}),
      createdAt: now,
    },
  };
}

function decide(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'CreateUser': {
      if (state.exists) {
        throw new ApiError('ERR_UID_ALREADY_EXISTS', `A user with uid ${command.profile.uid} already exists.`);
      }
      const created: UserEvent = { type: 'UserCreated', data: { ...command.profile, createdAt: command.now } };
      return command.authToken ? [created, tokenEvent(command.profile.uid, command.authToken, command.now)] : [created];
    }
    case 'CreateAuthToken': {
      if (!state.exists) throw new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${command.uid} does not exist.`);
      return [tokenEvent(command.uid, command.authToken, command.now)];
    }
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
}

function evolve(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserCreated':
      return { ...state, exists: true };
    case 'AuthTokenCreated':
      return { ...state, tokenCount: state.tokenCount + 1 };
    default: {
      const unreachable: never = event;
      throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ exists: false, tokenCount: 0 }),
  decide,
  evolve,
  snapshotVersion: 1,
};

export function userStream(appId: string, uid: string): string {
  return `user:${appId}:${uid}`;
}
