import type { Decider } from '@chat/eventsourcing';
import type { GroupCommand } from './groupCommands.js';
import { decideCreate, decideDelete, decideImportGroup, decidePermissions, decideUpdate } from './groupDecisions.js';
import { evolve } from './groupEvolution.js';
import { initialState, viewOf } from './groupState.js';
import type { GroupEvent, GroupState } from './groupState.js';
import { decideAddMembers, decideBan, decideChangeScope, decideImportMembers, decideKick, decideUnban } from './memberDecisions.js';

/**
 * The group aggregate: one stream per (app, guid). Its state — the one stored with every commit as a
 * snapshot — holds the profile, the member count and the scope permissions, never the members: a
 * group of 10,000 members must not rewrite 10,000 entries per join. What a command needs to know of
 * individual users (the actor's and targets' membership and bans) comes with the command as its
 * `roster`, read from the member read models as of the stream's version (the application waits until
 * they have applied it, and the command runner re-reads it after a conflict). Every rule about who
 * may do what to whom is decided here, so two racing requests cannot both pass a check only one may.
 */

function decide(command: GroupCommand, current: GroupState, guid: string): GroupEvent[] {
  const state = viewOf(current, command.roster);
  switch (command.type) {
    case 'CreateGroup':
      return decideCreate(command, state);
    case 'UpdateGroup':
      return decideUpdate(command, state, guid);
    case 'DeleteGroup':
      return decideDelete(command, state, guid);
    case 'ImportGroup':
      return decideImportGroup(command, state);
    case 'ImportMembers':
      return decideImportMembers(command, state, guid);
    case 'AddMembers':
      return decideAddMembers(command, state, guid);
    case 'KickMember':
      return decideKick(command, state, guid);
    case 'ChangeMemberScope':
      return decideChangeScope(command, state, guid);
    case 'BanMember':
      return decideBan(command, state, guid);
    case 'UnbanMember':
      return decideUnban(command, state, guid);
    case 'SetScopePermissions':
    case 'UnsetScopePermission':
      return decidePermissions(command, state, guid);
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The decider of one group's stream (its guid is the stream's, passed in so errors can name it). */
export function groupDecider(guid: string): Decider<GroupState, GroupCommand, GroupEvent> {
  return {
    initialState,
    evolve,
    decide: (command, state) => decide(command, state, guid),
    // 2: members and bans left the state (they come with each command's roster).
    snapshotVersion: 2,
  };
}
