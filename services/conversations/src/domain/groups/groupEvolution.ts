import type { GroupProfile, GroupScopePermissionId } from '@chat/contracts';
import { initialState } from './groupState.js';
import type { GroupEvent, GroupState } from './groupState.js';

function evolveState(state: GroupState, event: GroupEvent): GroupState {
  switch (event.type) {
    case 'GroupCreated': {
      const { passwordHash, createdBy, createdAt, ...profile } = event.data;
      void createdBy;
      return {
        ...initialState(),
        exists: true,
        profile,
        ...(passwordHash !== undefined ? { passwordHash } : {}),
        createdAt,
        updatedAt: createdAt,
      };
    }
    case 'GroupUpdated': {
      if (!state.profile) return state;
      const { passwordHash, ...changes } = event.data.changes;
      const profile: GroupProfile = { ...state.profile, ...changes };
      const next: GroupState = { ...state, profile, updatedAt: event.data.updatedAt };
      for (const key of event.data.removed) {
        if (key === 'passwordHash') delete next.passwordHash;
        else if (key === 'tags') profile.tags = [];
        else delete profile[key];
      }
      if (passwordHash !== undefined) next.passwordHash = passwordHash;
      return next;
    }
    case 'GroupDeleted':
      return { ...initialState(), createdAt: state.createdAt, updatedAt: event.data.deletedAt };
    // Events carry the count after them; events written before it was carried imply it.
    case 'GroupMemberJoined':
      return { ...state, membersCount: event.data.membersCount ?? state.membersCount + 1 };
    case 'GroupMembersAdded':
      return { ...state, membersCount: event.data.membersCount ?? state.membersCount + event.data.members.length };
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
      return { ...state, membersCount: event.data.membersCount ?? state.membersCount - 1 };
    case 'GroupMemberBanned':
      return { ...state, membersCount: event.data.membersCount ?? state.membersCount - (event.data.wasMember ? 1 : 0) };
    case 'GroupMemberScopeChanged':
    case 'GroupMemberUnbanned':
      return state;
    case 'GroupScopePermissionsChanged': {
      const { scope, changedAt } = event.data;
      const values = { ...state.permissions[scope] };
      for (const [id, value] of Object.entries(event.data.permissions)) values[id as GroupScopePermissionId] = { value, at: changedAt };
      for (const id of event.data.removed) delete values[id as GroupScopePermissionId];
      return { ...state, permissions: { ...state.permissions, [scope]: values } };
    }
    default: {
      const unreachable: never = event;
      throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

export function evolve(state: GroupState, event: GroupEvent): GroupState {
  return { ...evolveState(state, event), version: state.version + 1 };
}
