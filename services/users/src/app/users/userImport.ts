import { ApiError } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import { settleEach } from '@chat/http';
import type { ImportOutcome, KeyedRecord } from '@chat/http';
import type { UserReadModels } from '../../adapters/readModels.js';
import type { UserDoc } from '../../projections/users/users.js';
import { DEFAULT_ROLE } from '../../domain/roles/roles.js';
import type { UserProfile } from '../../domain/users/user.js';
import { UserCommands } from '../context.js';
import type { UsersDeps } from '../context.js';
import { renderUser } from '../views.js';
import type { UserResource } from '../views.js';

/** One user of a data import, as the http layer validated it: a profile and the caller's own times (epoch seconds). */
export type ImportedUser = UserProfile & { createdAt?: number; lastActiveAt?: number; deactivatedAt?: number };

/**
 * `POST /data_import/users`: each record is an `ImportUser` command on its own stream, all started at
 * once so the runner appends them as one grouped insert. A uid that exists already is left as it is
 * and answered as stored, so a migration can be rerun from its start.
 */
export class UserImport {
  private readonly runner: UserCommands;
  private readonly readModels: UserReadModels;

  constructor(deps: UsersDeps) {
    this.runner = new UserCommands(deps);
    this.readModels = deps.readModels;
  }

  /**
   * Every record at once. What the store already holds is read in one go (the users by their uids, one
   * read per distinct role), so a rerun of a migration answers its records as stored without a
   * command, and a first run sends every new user to the runner together.
   */
  async importAll(context: RequestContext, records: readonly KeyedRecord<ImportedUser>[]): Promise<Map<string, ImportOutcome>> {
    const { appId } = context.actor;
    const [unknownRoles, stored] = await Promise.all([this.unknownRoles(appId, records), this.readModels.findUsers(appId, records.map((r) => r.value.uid))]);
    return settleEach(records, async ({ value }) => {
      if (unknownRoles.has(value.role)) throw new ApiError('ERR_ROLE_NOT_FOUND', `The role ${value.role} does not exist.`);
      const existing = stored.get(value.uid);
      return existing ? answerAsStored(existing) : this.importOne(context, value);
    });
  }

  /** The roles the records name that do not exist (one read per distinct role, not per record). */
  private async unknownRoles(appId: string, records: readonly KeyedRecord<ImportedUser>[]): Promise<Set<string>> {
    const roles = [...new Set(records.map((r) => r.value.role))].filter((role) => role !== DEFAULT_ROLE);
    const found = await Promise.all(roles.map(async (role) => ((await this.readModels.findRole(appId, role)) ? null : role)));
    return new Set(found.filter((role): role is string => role !== null));
  }

  private async importOne(context: RequestContext, user: ImportedUser): Promise<UserResource> {
    const now = this.runner.now();
    const nowSeconds = this.runner.epochNow();
    const { createdAt, lastActiveAt, deactivatedAt, ...profile } = user;
    const created = createdAt ?? nowSeconds;
    if (deactivatedAt !== undefined && deactivatedAt < created) {
      throw new ApiError('ERR_BAD_REQUEST', `deactivatedAt: must not be before createdAt (${created}).`);
    }
    const events = await this.runner.creatingUser(
      context,
      user.uid,
      () => ({
        type: 'ImportUser',
        profile: profile,
        createdAt: created,
        ...(lastActiveAt !== undefined ? { lastActiveAt } : {}),
        ...(deactivatedAt !== undefined ? { deactivatedAt } : {}),
      }),
      now,
    );
    if (events.length === 0) {
      // Created since the read above (another request): answered as stored, unchanged.
      const doc = await this.readModels.findUser(context.actor.appId, user.uid);
      if (!doc) throw new ApiError('ERR_UID_ALREADY_EXISTS', `The uid ${user.uid} was used by a deleted user.`);
      return answerAsStored(doc);
    }
    return renderUser({
      appId: context.actor.appId,
      uid: profile.uid,
      name: profile.name,
      sortName: profile.name.toLowerCase(),
      listKey: '',
      ...(profile.avatar !== undefined ? { avatar: profile.avatar } : {}),
      ...(profile.link !== undefined ? { link: profile.link } : {}),
      role: profile.role,
      ...(profile.statusMessage !== undefined ? { statusMessage: profile.statusMessage } : {}),
      ...(profile.metadata !== undefined ? { metadata: JSON.stringify(profile.metadata) } : {}),
      tags: profile.tags,
      status: 'offline',
      state: deactivatedAt === undefined ? 'active' : 'deactivated',
      createdAt: created,
      updatedAt: created,
      ...(deactivatedAt !== undefined ? { deactivatedAt } : {}),
      ...(lastActiveAt !== undefined ? { lastActiveAt } : {}),
    });
  }
}

/** A uid imported before (or created otherwise) is answered as stored, unchanged; a deleted user's uid stays taken. */
function answerAsStored(doc: UserDoc): UserResource {
  if (doc.state === 'deleted') throw new ApiError('ERR_UID_ALREADY_EXISTS', `The uid ${doc.uid} was used by a deleted user.`);
  return renderUser(doc);
}
