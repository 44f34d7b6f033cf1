import { ApiError, epochSeconds } from '@chat/contracts';
import type { GroupProfile, GroupScope, RequestContext } from '@chat/contracts';
import type { KeyedRecord, RecordResult } from '@chat/http';
import { readWithPatience } from '@chat/mongo';
import type { ImportedMember } from '../../domain/groups/groupCommands.js';
import { renderGroup } from '../../domain/groups/groupsView.js';
import type { GroupStreams, GroupsDeps } from './groupStreams.js';
import { hashGroupPassword } from './groupsPassword.js';

/** One group of a data import, as the http layer validated it; `createdAt` in epoch seconds. */
export type ImportedGroupRecord = Omit<GroupProfile, 'owner'> & { owner?: string; password?: string; createdAt?: number };

/** One membership of a data import, keyed `<guid>_member_<uid>` by the caller; `joinedAt` in epoch seconds. */
export interface ImportedMemberRecord {
  memberId: string;
  guid: string;
  uid: string;
  scope: GroupScope;
  isBanned: boolean;
  joinedAt?: number;
}

function uidNotFound(uid: string): ApiError {
  return new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${uid} does not exist; import users before their groups and memberships.`);
}

/**
 * `POST /data_import/groups` and `/members`. Groups keep their guid, owner and creation time; members
 * their scope, ban and joining time. Every group's command of a request runs at once (one grouped
 * insert); memberships of one group are one command. What exists already is left as it is and
 * answered as stored, so a migration can be rerun from its start.
 */
export class GroupImport {
  private readonly clock: () => Date;

  constructor(
    private readonly groups: GroupStreams,
    private readonly deps: GroupsDeps,
  ) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /**
   * Which of the named users exist. Users are imported through the users service just before their
   * groups and memberships and reach this service through Kafka, so a missing one is waited for
   * briefly (as any command here waits for a user); a request naming a uid that never existed pays
   * the wait once.
   */
  private async knownUsers(appId: string, uids: readonly string[]): Promise<Set<string>> {
    const named = [...new Set(uids)];
    if (named.length === 0) return new Set();
    return readWithPatience(async () => new Set((await this.deps.users.findUsers(appId, named)).keys()), {
      until: (known) => named.every((uid) => known.has(uid)),
    });
  }

  async importGroups(context: RequestContext, records: readonly KeyedRecord<ImportedGroupRecord>[]): Promise<Map<string, RecordResult>> {
    const { appId } = context.actor;
    const known = await this.knownUsers(appId, records.flatMap((r) => (r.value.owner ? [r.value.owner] : [])));
    const now = this.clock();
    const results = new Map<string, RecordResult>();
    const imported: KeyedRecord<ImportedGroupRecord>[] = [];
    await Promise.all(
      records.map(async (record) => {
        try {
          const { password, createdAt, owner, ...fields } = record.value;
          if (owner !== undefined && !known.has(owner)) throw uidNotFound(owner);
          const profile: GroupProfile = { ...fields, owner: owner ?? '' };
          const passwordHash = password !== undefined ? await hashGroupPassword(password) : undefined;
          const command = { type: 'ImportGroup' as const, profile, ...(passwordHash !== undefined ? { passwordHash } : {}), createdAt: createdAt ?? epochSeconds(now) };
          await this.groups.execute(context, record.value.guid, command, now);
          imported.push(record);
        } catch (error) {
          results.set(record.key, { error });
        }
      }),
    );
    // Answered as stored (a rerun's groups unchanged), read together once every command has run.
    const stored = await this.deps.readModels.findGroups(appId, imported.map((r) => r.value.guid));
    for (const { key, value } of imported) {
      const doc = stored.get(value.guid);
      results.set(key, doc ? { ok: renderGroup(doc, { membership: null }) } : { error: new ApiError('ERR_GUID_NOT_FOUND', `The group ${value.guid} was deleted; its guid cannot be imported again.`) });
    }
    return results;
  }

  async importMembers(context: RequestContext, records: readonly KeyedRecord<ImportedMemberRecord>[]): Promise<Map<string, RecordResult>> {
    const { appId } = context.actor;
    const known = await this.knownUsers(appId, records.map((r) => r.value.uid));
    const now = this.clock();
    const nowSeconds = epochSeconds(now);
    const results = new Map<string, RecordResult>();
    const byGroup = new Map<string, KeyedRecord<ImportedMemberRecord>[]>();
    for (const record of records) {
      if (!known.has(record.value.uid)) results.set(record.key, { error: uidNotFound(record.value.uid) });
      else byGroup.set(record.value.guid, [...(byGroup.get(record.value.guid) ?? []), record]);
    }
    await Promise.all(
      [...byGroup].map(async ([guid, members]) => {
        try {
          const state = await this.groups.loadGroup(appId, guid);
          if (!state.exists) throw new ApiError('ERR_GUID_NOT_FOUND', `The group ${guid} does not exist; import groups before their members.`);
          const accepted: (ImportedMember & { key: string })[] = [];
          for (const { key, value } of members) {
            const joinedAt = value.joinedAt ?? nowSeconds;
            if (joinedAt < state.createdAt) {
              results.set(key, {
                error: new ApiError('ERR_IMPORT_INVALID_JOINEDAT', `joinedAt: must be between the group's createdAt (${state.createdAt}) and now.`),
              });
            } else accepted.push({ key, uid: value.uid, scope: value.scope, joinedAt, banned: value.isBanned });
          }
          if (accepted.length === 0) return;
          const result = await this.groups.execute(context, guid, { type: 'ImportMembers', members: accepted }, now);
          const roster = await this.deps.readModels.rosterAt(appId, guid, accepted.map((m) => m.uid), result.version);
          for (const member of accepted) {
            const stored = roster.members[member.uid];
            const bannedAt = roster.banned[member.uid];
            results.set(member.key, {
              ok: stored
                ? { guid, uid: member.uid, scope: stored.scope, joinedAt: stored.joinedAt }
                : { guid, uid: member.uid, isBanned: true, ...(bannedAt !== undefined ? { bannedAt } : {}) },
            });
          }
        } catch (error) {
          for (const { key } of members) if (!results.has(key)) results.set(key, { error });
        }
      }),
    );
    return results;
  }
}
