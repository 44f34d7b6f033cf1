import { ApiError, isUid } from '@chat/contracts';
import type { Actor, RequestContext } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import { readWithPatience } from '@chat/mongo';
import type { GroupReadModels } from '../../adapters/groups/groupsReadModels.js';
import type { PeerUserDoc } from '../../domain/conversationView.js';
import { groupDecider } from '../../domain/groups/group.js';
import type { GroupCommand } from '../../domain/groups/groupCommands.js';
import { groupNotFound, groupStream } from '../../domain/groups/groupState.js';
import type { GroupEvent, GroupState } from '../../domain/groups/groupState.js';

/** Who exists: the service's own projection of users (read only; the users service owns them). */
export interface UserDirectory {
  findUser(appId: string, uid: string): Promise<PeerUserDoc | null>;
  findUsers(appId: string, uids: readonly string[]): Promise<Map<string, PeerUserDoc>>;
}

export interface GroupsDeps {
  /** The shared runner: appends, publishes and applies to this service's read models. */
  runner: CommandRunner;
  readModels: GroupReadModels;
  users: UserDirectory;
  clock?: () => Date;
}

export interface Outcome {
  success: boolean;
  message: string;
}

export function uidNotFound(uid: string): ApiError {
  return new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${uid} does not exist.`);
}

/** The users whose membership or ban a command's decision reads. */
function involvedUids(command: GroupCommand): string[] {
  const by = 'by' in command && command.by !== undefined ? [command.by] : [];
  switch (command.type) {
    case 'CreateGroup':
    case 'ImportGroup':
    case 'SetScopePermissions':
    case 'UnsetScopePermission':
      return [];
    case 'UpdateGroup':
      return [...by, ...(command.changes.owner !== undefined ? [command.changes.owner] : [])];
    case 'DeleteGroup':
      return by;
    case 'AddMembers':
      return [...by, ...command.members.map((m) => m.uid), ...command.usersToBan];
    case 'ImportMembers':
      return command.members.map((m) => m.uid);
    case 'KickMember':
    case 'ChangeMemberScope':
    case 'BanMember':
    case 'UnbanMember':
      return [...by, command.uid];
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * How every group use case reaches a group: its stream (through the shared runner), the acting user,
 * and which of the users a command names exist.
 */
export class GroupStreams {
  /** The time every use case here decides with (a test's clock, else the system's). */
  readonly now: () => Date;

  constructor(private readonly deps: GroupsDeps) {
    this.now = deps.clock ?? (() => new Date());
  }

  /**
   * Runs a command on the group's stream; its events reach the read models before it answers. The
   * command's roster (the membership and bans of the users it involves) is read on every attempt,
   * as of the version the attempt decides on. Also the data import's way onto a group stream.
   */
  execute(context: RequestContext, guid: string, command: GroupCommand, now: Date) {
    const { appId } = context.actor;
    const involved = involvedUids(command);
    return this.deps.runner.run({
      decider: groupDecider(guid),
      streamId: groupStream(appId, guid),
      command: async (state: GroupState): Promise<GroupCommand> =>
        involved.length === 0 ? command : { ...command, roster: await this.deps.readModels.rosterAt(appId, guid, involved, state.version) },
      metadata: commandMetadata(context, now),
    });
  }

  /** The group's current state straight from its stream (the snapshot of its last commit). */
  async loadGroup(appId: string, guid: string): Promise<GroupState> {
    const { state } = await this.deps.runner.load<GroupState, GroupEvent>(groupDecider(guid), groupStream(appId, guid));
    return state;
  }

  /** Which of these uids exist, waiting briefly for users created a moment ago to reach this service. */
  async existingUsers(appId: string, uids: readonly string[]): Promise<Set<string>> {
    const wanted = [...new Set(uids)].filter(isUid);
    if (wanted.length === 0) return new Set();
    if (wanted.length === 1) {
      // One user (the acting one, mostly): a read by id, the cheapest query there is.
      const uid: string = wanted[0] ?? '';
      const user = await readWithPatience(() => this.deps.users.findUser(appId, uid));
      return new Set(user ? [uid] : []);
    }
    let last = new Map<string, PeerUserDoc>();
    await readWithPatience(async () => {
      last = await this.deps.users.findUsers(appId, wanted);
      return last.size === wanted.length ? last : null;
    });
    return new Set(last.keys());
  }

  /** The acting user (onBehalfOf), who must exist; undefined when the app acts by itself. */
  async actingUser(actor: Actor): Promise<string | undefined> {
    if (actor.uid === undefined) return undefined;
    const found = await this.existingUsers(actor.appId, [actor.uid]);
    if (!found.has(actor.uid)) throw uidNotFound(actor.uid);
    return actor.uid;
  }

  async existingGroup(appId: string, guid: string) {
    const doc = await this.deps.readModels.findGroup(appId, guid);
    if (!doc) throw groupNotFound(guid);
    return doc;
  }
}
