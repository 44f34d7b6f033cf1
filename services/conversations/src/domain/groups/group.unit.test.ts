import { ApiError } from '@chat/contracts';
import type { GroupProfile } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { rosterAfter } from '../../projections/groups/groupsTestEvents.js';
import { groupDecider } from './group.js';
import type { GroupCommand } from './groupCommands.js';
import type { GroupEvent } from './groupState.js';

const decider = groupDecider('g');

/** given/when/then where each command carries the roster of its history, as the application gives it. */
const base = specFor(decider);
const spec = {
  given: (history: readonly GroupEvent[]) => ({
    when: (command: GroupCommand) => base.given(history).when({ ...command, roster: rosterAfter(history) }),
  }),
};
const refusedWith = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;

const profile: GroupProfile = { guid: 'g', name: 'G', type: 'public', owner: 'o', tags: [] };
const created = (overrides: Partial<GroupProfile> = {}, passwordHash?: string): GroupEvent => ({
  type: 'GroupCreated',
  data: { ...profile, ...overrides, ...(passwordHash ? { passwordHash } : {}), createdBy: 'o', createdAt: 1 },
});
const added = (members: Array<[string, 'admin' | 'moderator' | 'participant']>, membersCount: number, addedBy?: string): GroupEvent => ({
  type: 'GroupMembersAdded',
  data: { guid: 'g', members: members.map(([uid, scope]) => ({ uid, scope })), ...(addedBy ? { addedBy } : {}), addedAt: 1, membersCount },
});
const banned = (uid: string, wasMember: boolean, membersCount: number, bannedBy?: string): GroupEvent => ({
  type: 'GroupMemberBanned',
  data: { guid: 'g', uid, ...(bannedBy ? { bannedBy } : {}), bannedAt: 5, wasMember, membersCount },
});

/** o owns; a is admin, m moderator, p and q participants; x is banned. */
const team: GroupEvent[] = [
  created(),
  added([['o', 'admin'], ['a', 'admin'], ['m', 'moderator'], ['p', 'participant'], ['q', 'participant']], 5, 'o'),
  banned('x', false, 5, 'o'),
];

const add = (command: Partial<Extract<GroupCommand, { type: 'AddMembers' }>>): GroupCommand => ({
  type: 'AddMembers',
  members: [],
  usersToBan: [],
  knownUsers: ['o', 'a', 'm', 'p', 'q', 'x', 'n', 'n2'],
  now: 5,
  ...command,
});

describe('group decider: create', () => {
  it('creates the group, adds the owner as admin with the listed members, and bans the listed users', () => {
    spec
      .given([])
      .when({
        type: 'CreateGroup',
        profile,
        members: [{ uid: 'a', scope: 'admin' }, { uid: 'p', scope: 'participant' }],
        usersToBan: ['x'],
        by: 'o',
        now: 1,
      })
      .then([created(), added([['o', 'admin'], ['a', 'admin'], ['p', 'participant']], 3, 'o'), { ...banned('x', false, 3, 'o'), data: { ...banned('x', false, 3, 'o').data, bannedAt: 1 } } as GroupEvent]);
  });

  it('creates an ownerless group with no member when the app acts alone', () => {
    spec
      .given([])
      .when({ type: 'CreateGroup', profile: { ...profile, owner: '' }, members: [], usersToBan: [], now: 1 })
      .then([{ type: 'GroupCreated', data: { ...profile, owner: '', createdAt: 1 } }]);
  });

  it('refuses an existing guid, and banning the owner', () => {
    const command: GroupCommand = { type: 'CreateGroup', profile, members: [], usersToBan: [], now: 2 };
    spec.given([created()]).when(command).thenThrows(refusedWith('ERR_GUID_ALREADY_EXISTS'));
    spec.given([]).when({ ...command, usersToBan: ['o'] }).thenThrows(refusedWith('ERR_GROUP_NO_CLEARANCE'));
  });

  it('allows the guid again once the group was deleted, starting empty', () => {
    const history = [...team, { type: 'GroupDeleted', data: { guid: 'g', deletedAt: 3 } } as GroupEvent];
    spec
      .given(history)
      .when({ type: 'CreateGroup', profile: { ...profile, owner: '' }, members: [], usersToBan: [], now: 4 })
      .then([{ type: 'GroupCreated', data: { ...profile, owner: '', createdAt: 4 } }]);
    const state = [...history, created()].reduce(decider.evolve, decider.initialState());
    expect(state.membersCount).toBe(0);
    expect(rosterAfter([...history, created()])).toEqual({ members: {}, banned: {} });
  });
});

describe('group decider: update and delete', () => {
  it('records only real changes and removals, and nothing for an unchanged update', () => {
    spec
      .given([created({ icon: 'https://i', description: 'd' }), added([['o', 'admin']], 1)])
      .when({ type: 'UpdateGroup', changes: { name: 'H', description: 'd' }, removed: ['icon', 'metadata'], by: 'o', now: 3 })
      .then([{ type: 'GroupUpdated', data: { guid: 'g', changes: { name: 'H' }, removed: ['icon'], updatedBy: 'o', updatedAt: 3 } }]);
    spec.given([created()]).when({ type: 'UpdateGroup', changes: { name: 'G' }, removed: [], now: 3 }).thenNothingHappens();
  });

  it('needs a password to become a password group and drops the hash when it stops being one', () => {
    spec.given([created()]).when({ type: 'UpdateGroup', changes: { type: 'password' }, removed: [], now: 3 }).thenThrows(refusedWith('ERR_EMPTY_GROUP_PASS'));
    spec
      .given([created({ type: 'password' }, 'scrypt$s$h')])
      .when({ type: 'UpdateGroup', changes: { type: 'public' }, removed: [], now: 3 })
      .then([{ type: 'GroupUpdated', data: { guid: 'g', changes: { type: 'public' }, removed: ['passwordHash'], updatedAt: 3 } }]);
  });

  it('hands over ownership (only by the owner), making the new owner an admin member', () => {
    spec
      .given(team)
      .when({ type: 'UpdateGroup', changes: { owner: 'p' }, removed: [], by: 'o', now: 3 })
      .then([
        { type: 'GroupMemberScopeChanged', data: { guid: 'g', uid: 'p', scope: 'admin', previousScope: 'participant', changedBy: 'o', changedAt: 3 } },
        { type: 'GroupUpdated', data: { guid: 'g', changes: { owner: 'p' }, removed: [], updatedBy: 'o', updatedAt: 3 } },
      ]);
    spec
      .given(team)
      .when({ type: 'UpdateGroup', changes: { owner: 'n' }, removed: [], now: 3 })
      .then([
        { type: 'GroupMembersAdded', data: { guid: 'g', members: [{ uid: 'n', scope: 'admin' }], addedAt: 3, membersCount: 6 } },
        { type: 'GroupUpdated', data: { guid: 'g', changes: { owner: 'n' }, removed: [], updatedAt: 3 } },
      ]);
    spec.given(team).when({ type: 'UpdateGroup', changes: { owner: 'p' }, removed: [], by: 'a', now: 3 }).thenThrows(refusedWith('ERR_GROUP_NO_CLEARANCE'));
    spec.given(team).when({ type: 'UpdateGroup', changes: { owner: 'x' }, removed: [], now: 3 }).thenThrows(refusedWith('ERR_BANNED_GROUPMEMBER'));
  });

  it('lets only admins update or delete, members in good standing only', () => {
    spec.given(team).when({ type: 'UpdateGroup', changes: { name: 'H' }, removed: [], by: 'm', now: 3 }).thenThrows(refusedWith('ERR_GROUP_NO_ADMIN_SCOPE'));
    spec.given(team).when({ type: 'UpdateGroup', changes: { name: 'H' }, removed: [], by: 'n', now: 3 }).thenThrows(refusedWith('ERR_GROUP_NOT_JOINED'));
    spec.given(team).when({ type: 'DeleteGroup', by: 'x', now: 3 }).thenThrows(refusedWith('ERR_BANNED_GROUPMEMBER'));
    spec.given(team).when({ type: 'DeleteGroup', by: 'p', now: 3 }).thenThrows(refusedWith('ERR_GROUP_NO_ADMIN_SCOPE'));
    spec.given(team).when({ type: 'DeleteGroup', by: 'a', now: 3 }).then([{ type: 'GroupDeleted', data: { guid: 'g', deletedBy: 'a', deletedAt: 3 } }]);
  });

  it('answers ERR_GUID_NOT_FOUND for every command on a missing or deleted group', () => {
    spec.given([]).when({ type: 'DeleteGroup', now: 3 }).thenThrows(refusedWith('ERR_GUID_NOT_FOUND'));
    const deleted = [...team, { type: 'GroupDeleted', data: { guid: 'g', deletedAt: 3 } } as GroupEvent];
    spec.given(deleted).when({ type: 'KickMember', uid: 'p', now: 4 }).thenThrows(refusedWith('ERR_GUID_NOT_FOUND'));
    spec.given(deleted).when({ type: 'SetScopePermissions', scope: 'admin', permissions: { sendMessage: 'deny' }, now: 4 }).thenThrows(refusedWith('ERR_GUID_NOT_FOUND'));
  });
});

describe('group decider: adding and joining', () => {
  it('adds the uids it can and leaves out unknown, existing and banned ones', () => {
    spec
      .given(team)
      .when(add({ members: [{ uid: 'n', scope: 'moderator' }, { uid: 'p', scope: 'participant' }, { uid: 'x', scope: 'participant' }, { uid: 'ghost', scope: 'participant' }] }))
      .then([{ type: 'GroupMembersAdded', data: { guid: 'g', members: [{ uid: 'n', scope: 'moderator' }], addedAt: 5, membersCount: 6 } }]);
  });

  it('counts members through a request that adds some and bans others', () => {
    spec
      .given(team)
      .when(add({ members: [{ uid: 'n', scope: 'participant' }], usersToBan: ['q', 'n2', 'o'], by: 'a' }))
      .then([
        { type: 'GroupMembersAdded', data: { guid: 'g', members: [{ uid: 'n', scope: 'participant' }], addedBy: 'a', addedAt: 5, membersCount: 6 } },
        banned('q', true, 5, 'a'),
        banned('n2', false, 5, 'a'),
      ]);
  });

  it('lets moderators add participants, and only admins add moderators or admins', () => {
    spec.given(team).when(add({ members: [{ uid: 'n', scope: 'participant' }], by: 'p' })).thenThrows(refusedWith('ERR_GROUP_NO_MODERATOR_SCOPE'));
    spec.given(team).when(add({ members: [{ uid: 'n', scope: 'moderator' }], by: 'm' })).thenThrows(refusedWith('ERR_GROUP_NO_ADMIN_SCOPE'));
    spec
      .given(team)
      .when(add({ members: [{ uid: 'n', scope: 'participant' }], by: 'm' }))
      .then([{ type: 'GroupMembersAdded', data: { guid: 'g', members: [{ uid: 'n', scope: 'participant' }], addedBy: 'm', addedAt: 5, membersCount: 6 } }]);
    spec.given(team).when(add({ usersToBan: ['m'], by: 'm' })).thenThrows(refusedWith('ERR_GROUP_NO_SELF_ACTION'));
  });

  it('lets a user join a public group, a password group with the verified password, never a private one', () => {
    const join = add({ members: [{ uid: 'n', scope: 'participant' }], by: 'n' });
    spec.given(team).when(join).then([{ type: 'GroupMemberJoined', data: { guid: 'g', uid: 'n', scope: 'participant', joinedAt: 5, membersCount: 6 } }]);
    const locked = [created({ type: 'password' }, 'scrypt$s$h'), added([['o', 'admin']], 1)];
    spec.given(locked).when(join).thenThrows(refusedWith('ERR_EMPTY_GROUP_PASS'));
    spec.given(locked).when({ ...join, password: {} } as GroupCommand).thenThrows(refusedWith('ERR_WRONG_GROUP_PASS'));
    spec.given(locked).when({ ...join, password: { verifiedHash: 'scrypt$old$h' } } as GroupCommand).thenThrows(refusedWith('ERR_WRONG_GROUP_PASS'));
    spec
      .given(locked)
      .when({ ...join, password: { verifiedHash: 'scrypt$s$h' } } as GroupCommand)
      .then([{ type: 'GroupMemberJoined', data: { guid: 'g', uid: 'n', scope: 'participant', joinedAt: 5, membersCount: 2 } }]);
    spec.given([created({ type: 'private' })]).when(join).thenThrows(refusedWith('ERR_GROUP_JOIN_NOT_ALLOWED'));
    spec.given(team).when(add({ members: [{ uid: 'x', scope: 'participant' }], by: 'x' })).thenThrows(refusedWith('ERR_BANNED_GROUPMEMBER'));
    spec.given(team).when(add({ members: [{ uid: 'p', scope: 'participant' }], by: 'p' })).thenThrows(refusedWith('ERR_ALREADY_JOINED'));
    spec.given(team).when(add({ members: [{ uid: 'n', scope: 'admin' }], by: 'n' })).thenThrows(refusedWith('ERR_GROUP_NO_ADMIN_SCOPE'));
  });
});

describe('group decider: kick, leave, scope, ban, unban', () => {
  it('kicks lower scopes only, never the owner; a member kicking themselves leaves', () => {
    spec.given(team).when({ type: 'KickMember', uid: 'p', by: 'm', now: 6 }).then([
      { type: 'GroupMemberKicked', data: { guid: 'g', uid: 'p', kickedBy: 'm', kickedAt: 6, membersCount: 4 } },
    ]);
    spec.given(team).when({ type: 'KickMember', uid: 'a', by: 'm', now: 6 }).thenThrows(refusedWith('ERR_GROUP_NO_CLEARANCE'));
    spec.given(team).when({ type: 'KickMember', uid: 'm', by: 'p', now: 6 }).thenThrows(refusedWith('ERR_GROUP_NO_MODERATOR_SCOPE'));
    spec.given(team).when({ type: 'KickMember', uid: 'o', now: 6 }).thenThrows(refusedWith('ERR_GROUP_NO_CLEARANCE'));
    spec.given(team).when({ type: 'KickMember', uid: 'n', now: 6 }).thenThrows(refusedWith('ERR_NOT_A_MEMBER'));
    spec.given(team).when({ type: 'KickMember', uid: 'q', by: 'q', now: 6 }).then([
      { type: 'GroupMemberLeft', data: { guid: 'g', uid: 'q', leftAt: 6, membersCount: 4 } },
    ]);
    spec.given(team).when({ type: 'KickMember', uid: 'o', by: 'o', now: 6 }).thenThrows(refusedWith('ERR_GROUP_NO_CLEARANCE'));
  });

  it('changes scopes by admins above the member, never their own, the owner\'s, or to the same scope', () => {
    spec.given(team).when({ type: 'ChangeMemberScope', uid: 'p', scope: 'moderator', by: 'a', now: 6 }).then([
      { type: 'GroupMemberScopeChanged', data: { guid: 'g', uid: 'p', scope: 'moderator', previousScope: 'participant', changedBy: 'a', changedAt: 6 } },
    ]);
    spec.given(team).when({ type: 'ChangeMemberScope', uid: 'a', scope: 'participant', by: 'o', now: 6 }).then([
      { type: 'GroupMemberScopeChanged', data: { guid: 'g', uid: 'a', scope: 'participant', previousScope: 'admin', changedBy: 'o', changedAt: 6 } },
    ]);
    spec.given(team).when({ type: 'ChangeMemberScope', uid: 'p', scope: 'moderator', by: 'm', now: 6 }).thenThrows(refusedWith('ERR_GROUP_NO_ADMIN_SCOPE'));
    spec.given(team).when({ type: 'ChangeMemberScope', uid: 'a', scope: 'moderator', by: 'a', now: 6 }).thenThrows(refusedWith('ERR_GROUP_NO_SELF_ACTION'));
    spec.given(team).when({ type: 'ChangeMemberScope', uid: 'o', scope: 'moderator', now: 6 }).thenThrows(refusedWith('ERR_GROUP_NO_CLEARANCE'));
    spec.given([...team, added([['a2', 'admin']], 6)]).when({ type: 'ChangeMemberScope', uid: 'a2', scope: 'moderator', by: 'a', now: 6 }).thenThrows(refusedWith('ERR_GROUP_NO_CLEARANCE'));
    spec.given(team).when({ type: 'ChangeMemberScope', uid: 'p', scope: 'participant', now: 6 }).thenThrows(refusedWith('ERR_SAME_SCOPE'));
    spec.given(team).when({ type: 'ChangeMemberScope', uid: 'n', scope: 'admin', now: 6 }).thenThrows(refusedWith('ERR_NOT_A_MEMBER'));
  });

  it('bans members (ending their membership) and non-members; unbans banned users only', () => {
    spec.given(team).when({ type: 'BanMember', uid: 'p', by: 'm', now: 5 }).then([banned('p', true, 4, 'm')]);
    spec.given(team).when({ type: 'BanMember', uid: 'n', now: 5 }).then([banned('n', false, 5)]);
    spec.given(team).when({ type: 'BanMember', uid: 'x', now: 5 }).thenThrows(refusedWith('ERR_ALREADY_BANNED'));
    spec.given(team).when({ type: 'BanMember', uid: 'o', now: 5 }).thenThrows(refusedWith('ERR_GROUP_NO_CLEARANCE'));
    spec.given(team).when({ type: 'BanMember', uid: 'a', by: 'm', now: 5 }).thenThrows(refusedWith('ERR_GROUP_NO_CLEARANCE'));
    spec.given(team).when({ type: 'BanMember', uid: 'm', by: 'm', now: 5 }).thenThrows(refusedWith('ERR_GROUP_NO_SELF_ACTION'));
    spec.given(team).when({ type: 'UnbanMember', uid: 'x', by: 'm', now: 6 }).then([
      { type: 'GroupMemberUnbanned', data: { guid: 'g', uid: 'x', unbannedBy: 'm', unbannedAt: 6 } },
    ]);
    spec.given(team).when({ type: 'UnbanMember', uid: 'x', by: 'p', now: 6 }).thenThrows(refusedWith('ERR_GROUP_NO_MODERATOR_SCOPE'));
    spec.given(team).when({ type: 'UnbanMember', uid: 'p', now: 6 }).thenThrows(refusedWith('ERR_NOT_A_BANNED_USER'));
    const state = [...team, banned('p', true, 4)].reduce(decider.evolve, decider.initialState());
    expect(state.membersCount).toBe(4);
    const roster = rosterAfter([...team, banned('p', true, 4)]);
    expect(roster.members).not.toHaveProperty('p');
    expect(roster.banned).toHaveProperty('p');
  });
});

describe('group decider: scope permissions', () => {
  const changed = (permissions: Record<string, string | string[]>, removed: string[] = []): GroupEvent => ({
    type: 'GroupScopePermissionsChanged',
    data: { guid: 'g', scope: 'participant', permissions, removed, changedAt: 7 },
  });

  it('records set values, skips values already in force, and unsets only what is set', () => {
    spec.given(team).when({ type: 'SetScopePermissions', scope: 'participant', permissions: { sendMessage: 'deny', editMessage: 'allow' }, now: 7 }).then([
      changed({ sendMessage: 'deny', editMessage: 'allow' }),
    ]);
    const denied = [...team, changed({ sendMessage: 'deny' })];
    spec.given(denied).when({ type: 'SetScopePermissions', scope: 'participant', permissions: { sendMessage: 'deny' }, now: 8 }).thenNothingHappens();
    spec.given(denied).when({ type: 'UnsetScopePermission', scope: 'participant', permission: 'sendMessage', now: 7 }).then([changed({}, ['sendMessage'])]);
    spec.given(team).when({ type: 'UnsetScopePermission', scope: 'participant', permission: 'sendMessage', now: 7 }).thenNothingHappens();
    const state = [...denied, changed({}, ['sendMessage'])].reduce(decider.evolve, decider.initialState());
    expect(state.permissions.participant).toEqual({});
  });
});

describe('group decider: data import', () => {
  it('creates a group with the caller’s creation time and its owner as admin, marked imported; a rerun changes nothing', () => {
    spec
      .given([])
      .when({ type: 'ImportGroup', profile, createdAt: 50 })
      .then([
        { type: 'GroupCreated', data: { ...profile, createdAt: 50, imported: true } },
        { type: 'GroupMembersAdded', data: { guid: 'g', members: [{ uid: 'o', scope: 'admin' }], addedAt: 50, membersCount: 1, imported: true } },
      ]);
    spec.given(team).when({ type: 'ImportGroup', profile: { ...profile, name: 'Other' }, createdAt: 50 }).then([]);
  });

  it('adds members at their own joining times and bans the banned ones; members and bans already there are left alone', () => {
    spec
      .given(team)
      .when({
        type: 'ImportMembers',
        members: [
          { uid: 'n', scope: 'participant', joinedAt: 9, banned: false },
          { uid: 'n2', scope: 'moderator', joinedAt: 7, banned: false },
          { uid: 'n3', scope: 'participant', joinedAt: 9, banned: false },
          { uid: 'b', scope: 'participant', joinedAt: 8, banned: true },
          { uid: 'p', scope: 'admin', joinedAt: 9, banned: false },
          { uid: 'x', scope: 'participant', joinedAt: 9, banned: false },
        ],
      })
      .then([
        { type: 'GroupMembersAdded', data: { guid: 'g', members: [{ uid: 'n2', scope: 'moderator' }], addedAt: 7, membersCount: 6, imported: true } },
        {
          type: 'GroupMembersAdded',
          data: { guid: 'g', members: [{ uid: 'n', scope: 'participant' }, { uid: 'n3', scope: 'participant' }], addedAt: 9, membersCount: 8, imported: true },
        },
        { type: 'GroupMemberBanned', data: { guid: 'g', uid: 'b', bannedAt: 8, wasMember: false, membersCount: 8, imported: true } },
      ]);
  });

  it('refuses members of a group that does not exist', () => {
    spec
      .given([])
      .when({ type: 'ImportMembers', members: [{ uid: 'n', scope: 'participant', joinedAt: 9, banned: false }] })
      .thenThrows(refusedWith('ERR_GUID_NOT_FOUND'));
  });
});
