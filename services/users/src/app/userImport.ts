import { ApiError } from '@chat/contracts';
import type { KeyedRecord } from '@chat/http';
import type { UserReadModels } from '../adapters/readModels.js';
import { DEFAULT_ROLE } from '../domain/roles.js';
import type { ImportedUser } from '../http/schemas.js';
import { UserCommands } from './context.js';
import type { RequestContext, UsersDeps } from './context.js';
import { renderUser } from './views.js';
import type { UserResource } from './views.js';

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

  /** The roles the records name that do not exist (one read per distinct role, not per record). */
  async unknownRoles(appId: string, records: readonly KeyedRecord<ImportedUser>[]): Promise<Set<string>> {
    const roles = [...new Set(records.map((r) => r.value.role))].filter((role) => role !== DEFAULT_ROLE);
    const found = await Promise.all(roles.map(async (role) => ((await this.readModels.findRole(appId, role)) ? null : role)));
    return new Set(found.filter((role): role is string => role !== null));
  }

  async importOne(context: RequestContext, user: ImportedUser): Promise<UserResource> {
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
      // Imported before (or created otherwise): answered as stored, unchanged.
      const doc = await this.readModels.findUser(context.actor.appId, user.uid);
      if (!doc || doc.state === 'deleted') throw new ApiError('ERR_UID_ALREADY_EXISTS', `The uid ${user.uid} was used by a deleted user.`);
      return renderUser(doc);
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
