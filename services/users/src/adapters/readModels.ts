import { eventTypeIn, userLifecycleEventTypes } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { GuardedProjectionWriter, ensureIndexes, stripStoredFields } from '@chat/mongo';
import type { Stored } from '@chat/mongo';
import type { Db, Filter, Sort } from 'mongodb';
import { authTokenDocId, authTokensProjection } from '../projections/authTokens.js';
import type { AuthTokenDoc } from '../projections/authTokens.js';
import { blocksProjection, friendsProjection, relationDocId } from '../projections/relations.js';
import type { RelationDoc } from '../projections/relations.js';
import { roleDocId, rolesProjection } from '../projections/roles.js';
import type { RoleDoc } from '../projections/roles.js';
import { userDocId, usersProjection } from '../projections/users.js';
import type { UserDoc, UserDocState } from '../projections/users.js';
import { UserDirectory } from './userDirectory.js';

export interface Page<T> {
  total: number;
  items: T[];
}

export interface UserQuery {
  states: UserDocState[];
  search?: { key: string; inName: boolean; inUid: boolean };
  roles?: string[];
  tags?: string[];
  /** Only these uids (friends, blocked users); the caller keeps the list bounded. */
  uids?: string[];
  page: number;
  perPage: number;
}

export type RelationKind = 'friends' | 'blocks';

/** Events that change whether (or where) a user appears in the default listing. */
const isListingEvent = eventTypeIn(userLifecycleEventTypes);

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every read model of the users service, and the queries its use cases need. */
export class UserReadModels {
  private readonly users: GuardedProjectionWriter<UserDoc>;
  private readonly tokens: GuardedProjectionWriter<AuthTokenDoc>;
  private readonly relations: Record<RelationKind, GuardedProjectionWriter<RelationDoc>>;
  private readonly roles: GuardedProjectionWriter<RoleDoc>;
  readonly directory: UserDirectory;

  constructor(private readonly db: Db) {
    this.users = new GuardedProjectionWriter(db, 'users', usersProjection);
    this.tokens = new GuardedProjectionWriter(db, 'authtokens', authTokensProjection);
    this.relations = {
      friends: new GuardedProjectionWriter(db, 'friends', friendsProjection),
      blocks: new GuardedProjectionWriter(db, 'blocks', blocksProjection),
    };
    this.roles = new GuardedProjectionWriter(db, 'roles', rolesProjection);
    this.directory = new UserDirectory(db);
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, 'users', [
      { keys: { appId: 1, state: 1, listKey: 1 }, options: { name: 'app_state_order' } },
      { keys: { appId: 1, role: 1 }, options: { name: 'app_role' } },
      { keys: { appId: 1, tags: 1 }, options: { name: 'app_tags' } },
    ]);
    await ensureIndexes(this.db, 'authtokens', [{ keys: { appId: 1, uid: 1, revoked: 1, createdAt: 1 }, options: { name: 'app_uid_live' } }]);
    for (const name of ['friends', 'blocks']) {
      await ensureIndexes(this.db, name, [{ keys: { appId: 1, owner: 1, active: 1, other: 1 }, options: { name: 'app_owner_live' } }]);
    }
    await ensureIndexes(this.db, 'roles', [{ keys: { appId: 1, deleted: 1, role: 1 }, options: { name: 'app_live_role' } }]);
  }

  async apply(event: EventEnvelope): Promise<void> {
    await this.users.apply(event);
    if (isListingEvent(event)) {
      const doc = await this.findUser(event.appId, String(event.data['uid']));
      if (doc) await this.directory.sync(doc);
    }
    await this.tokens.apply(event);
    await this.relations.friends.apply(event);
    await this.relations.blocks.apply(event);
    await this.roles.apply(event);
  }

  async findUser(appId: string, uid: string): Promise<UserDoc | null> {
    const doc = await this.users.documents().findOne({ _id: userDocId(appId, uid) } as Filter<Stored<UserDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  /**
   * One `_id` read per uid, one after the other: FerretDB scans for `$in`, and measured 100 concurrent
   * `findOne`s there took seconds where 100 sequential ones took ~0.2 s.
   */
  async findUsers(appId: string, uids: readonly string[]): Promise<Map<string, UserDoc>> {
    const found = new Map<string, UserDoc>();
    for (const uid of new Set(uids)) {
      const doc = await this.findUser(appId, uid);
      if (doc) found.set(uid, doc);
    }
    return found;
  }

  /** Without filters, a page of the default listing costs two small reads (see projections/userDirectory). */
  private async listFromDirectory(appId: string, page: number, perPage: number): Promise<Page<UserDoc>> {
    const { total, users } = await this.directory.page(appId, page, perPage);
    return { total, items: users };
  }

  async listUsers(appId: string, query: UserQuery): Promise<Page<UserDoc>> {
    const unfiltered = !query.search && !query.roles && !query.tags && !query.uids;
    if (unfiltered && query.states.length === 1 && query.states[0] === 'active') {
      return this.listFromDirectory(appId, query.page, query.perPage);
    }
    const filter: Record<string, unknown> = { appId, state: query.states.length === 1 ? query.states[0] : { $in: query.states } };
    if (query.roles) filter['role'] = { $in: query.roles };
    if (query.tags) filter['tags'] = { $in: query.tags };
    if (query.uids) filter['uid'] = { $in: query.uids };
    if (query.search) {
      const pattern = escapeRegex(query.search.key.toLowerCase());
      const fields = [
        ...(query.search.inName ? [{ sortName: { $regex: pattern } }] : []),
        ...(query.search.inUid ? [{ uid: { $regex: pattern } }] : []),
      ];
      filter['$or'] = fields;
    }
    const collection = this.users.documents();
    const typed = filter as Filter<Stored<UserDoc>>;
    const sort: Sort = { listKey: 1 };
    const [total, docs] = await Promise.all([
      collection.countDocuments(typed),
      collection
        .find(typed)
        .sort(sort)
        .skip((query.page - 1) * query.perPage)
        .limit(query.perPage)
        .toArray(),
    ]);
    return { total, items: docs.map((doc) => stripStoredFields(doc)) };
  }

  countUsersWithRole(appId: string, role: string): Promise<number> {
    return this.users.documents().countDocuments({ appId, role, state: { $in: ['active', 'deactivated'] } });
  }

  async findToken(appId: string, tokenId: string): Promise<AuthTokenDoc | null> {
    const doc = await this.tokens.documents().findOne({ _id: authTokenDocId(appId, tokenId) } as Filter<Stored<AuthTokenDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  async listTokens(appId: string, uid: string, page: number, perPage: number): Promise<Page<AuthTokenDoc>> {
    const collection = this.tokens.documents();
    const filter = { appId, uid, revoked: false } as Filter<Stored<AuthTokenDoc>>;
    const [total, docs] = await Promise.all([
      collection.countDocuments(filter),
      collection.find(filter).sort({ createdAt: 1, tokenId: 1 }).skip((page - 1) * perPage).limit(perPage).toArray(),
    ]);
    return { total, items: docs.map((doc) => stripStoredFields(doc)) };
  }

  /** The live edges of one user, oldest first (friends are capped at 1000 per user upstream). */
  async relationsOf(kind: RelationKind, appId: string, owner: string): Promise<RelationDoc[]> {
    const docs = await this.relations[kind]
      .documents()
      .find({ appId, owner, active: true } as Filter<Stored<RelationDoc>>)
      .sort({ other: 1 })
      .toArray();
    return docs.map((doc) => stripStoredFields(doc));
  }

  /** Which of `others` `owner` has a live edge to (read one by one, as `findUsers`). */
  async related(kind: RelationKind, appId: string, owner: string, others: readonly string[]): Promise<Set<string>> {
    const related = new Set<string>();
    for (const other of new Set(others)) {
      const doc = await this.relations[kind].documents().findOne({ _id: relationDocId(appId, owner, other) } as Filter<Stored<RelationDoc>>);
      if (doc?.active) related.add(other);
    }
    return related;
  }

  async findRole(appId: string, role: string): Promise<RoleDoc | null> {
    const doc = await this.roles.documents().findOne({ _id: roleDocId(appId, role) } as Filter<Stored<RoleDoc>>);
    return doc && !doc.deleted ? stripStoredFields(doc) : null;
  }

  async listRoles(appId: string, page: number, perPage: number): Promise<Page<RoleDoc>> {
    const collection = this.roles.documents();
    const filter = { appId, deleted: false } as Filter<Stored<RoleDoc>>;
    const [total, docs] = await Promise.all([
      collection.countDocuments(filter),
      collection.find(filter).sort({ role: 1 }).skip((page - 1) * perPage).limit(perPage).toArray(),
    ]);
    return { total, items: docs.map((doc) => stripStoredFields(doc)) };
  }
}
