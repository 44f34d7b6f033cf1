import { eventTypeIn, userLifecycleEventTypes } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { DocumentMemory, MongoDocumentStore, allOf, byScalarFields, ensureIndexes, escapeRegex, findByIds, findPage, keysetKeyOf, mongoProjection, stripStoredFields } from '@chat/mongo';
import type { DocumentMemoryOptions, EventApplier, KeysetOrder, ProjectionRuntime, PagePosition, Stored } from '@chat/mongo';
import type { Collection, Db, Filter } from 'mongodb';
import { authTokenDocId, authTokensProjection } from '../projections/users/authTokens.js';
import type { AuthTokenDoc } from '../projections/users/authTokens.js';
import { blocksProjection, friendsProjection, relationDocId } from '../projections/relations/relations.js';
import type { RelationDoc } from '../projections/relations/relations.js';
import { roleDocId, rolesProjection } from '../projections/roles/roles.js';
import type { RoleDoc } from '../projections/roles/roles.js';
import { userDocId, usersProjection } from '../projections/users/users.js';
import type { UserDoc, UserDocState } from '../projections/users/users.js';
import { UserDirectory } from './users/userDirectory.js';

export interface Page<T> {
  total: number;
  items: T[];
  /** Whether items follow this page. */
  more: boolean;
}

/** Orders of the lists (each ends in a unique field, so a cursor's key names one place). */
const USER_ORDER: KeysetOrder = [['listKey', 1]];
const TOKEN_ORDER: KeysetOrder = [
  ['createdAt', 1],
  ['tokenId', 1],
];
const ROLE_ORDER: KeysetOrder = [['role', 1]];

/** An auth token's place in its list, for a cursor. */
export function tokenKey(doc: AuthTokenDoc): (string | number)[] {
  return keysetKeyOf(TOKEN_ORDER, doc);
}

export interface UserQuery {
  states: UserDocState[];
  search?: { key: string; inName: boolean; inUid: boolean };
  roles?: string[];
  tags?: string[];
  /** Only these uids (friends, blocked users); the caller keeps the list bounded. */
  uids?: string[];
  position: PagePosition;
  perPage: number;
}

/**
 * Every document of one of this database's collections as a reader sees it: the user directory as each
 * app's listing (what its pages by offset and by cursor show), and nothing for the directory's chunks,
 * whose cut depends on the order users arrived in (ADR 0142). chatctl's rebuild compares these (ADR 0145).
 */
export async function readModelDocuments(db: Db, name: string): Promise<object[]> {
  if (name === 'userdirectorychunks') return [];
  if (name === 'userdirectories') return new UserDirectory(db).listings();
  return db.collection(name).find({}).toArray();
}

export type RelationKind = 'friends' | 'blocks';
/**
 * A user's edges by the string fields leading `app_owner_live` (both always strings in a relation
 * document): on FerretDB the read searches that index, not every app's friends or blocks.
 */
const BY_OWNER = byScalarFields('appId', 'owner');

/** Events that change whether (or where) a user appears in the default listing. */
const isListingEvent = eventTypeIn(userLifecycleEventTypes);

/** Every read model of the users service, and the queries its use cases need. */
export class UserReadModels implements EventApplier {
  private readonly users: Collection<Stored<UserDoc>>;
  private readonly tokens: Collection<Stored<AuthTokenDoc>>;
  private readonly relations: Record<RelationKind, Collection<Stored<RelationDoc>>>;
  private readonly roles: Collection<Stored<RoleDoc>>;
  private readonly usersProjection: ProjectionRuntime<UserDoc>;
  /** The other read models, written side by side (none depends on another). */
  private readonly independent: EventApplier;
  readonly directory: UserDirectory;
  /**
   * Users and roles as the gateway's role look-ups read them (every gated call of every user, each
   * second): from memory, kept current on every replica by `observe`.
   */
  private readonly accessMemory: { users: DocumentMemory; roles: DocumentMemory };

  /** `watchCurrentAsOf`: how current this replica's watch is (the pipeline's), so kept users and roles are not re-read while it keeps up. */
  constructor(
    private readonly db: Db,
    memory: Pick<DocumentMemoryOptions, 'watchCurrentAsOf'> = {},
  ) {
    this.users = db.collection('users');
    this.tokens = db.collection('authtokens');
    this.relations = { friends: db.collection('friends'), blocks: db.collection('blocks') };
    this.roles = db.collection('roles');
    this.usersProjection = mongoProjection(db, 'users', usersProjection);
    this.independent = allOf(
      mongoProjection(db, 'authtokens', authTokensProjection),
      mongoProjection(db, 'friends', friendsProjection),
      mongoProjection(db, 'blocks', blocksProjection),
      mongoProjection(db, 'roles', rolesProjection),
    );
    this.directory = new UserDirectory(db);
    this.accessMemory = {
      users: new DocumentMemory(new MongoDocumentStore(db, 'users'), [usersProjection], memory),
      roles: new DocumentMemory(new MongoDocumentStore(db, 'roles'), [rolesProjection], memory),
    };
  }

  /** This service's events as this replica sees them on Kafka (its event watch). */
  observe(events: readonly EventEnvelope[]): void {
    this.accessMemory.users.observe(events);
    this.accessMemory.roles.observe(events);
  }

  /** A user and their role's document, for the gateway's role look-ups, from memory where current. */
  async accessOf(appId: string, uid: string): Promise<{ user: UserDoc | null; role: RoleDoc | null }> {
    const userId = userDocId(appId, uid);
    const user = (await this.accessMemory.users.getMany([userId])).get(userId);
    if (!user) return { user: null, role: null };
    const roleId = roleDocId(appId, String(user['role']));
    const role = (await this.accessMemory.roles.getMany([roleId])).get(roleId);
    return {
      user: stripStoredFields(user as unknown as Stored<UserDoc>),
      role: role && role['deleted'] !== true ? stripStoredFields(role as unknown as Stored<RoleDoc>) : null,
    };
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

  /** Applies a batch to every read model; safe to call again with any of the same events. */
  async apply(events: readonly EventEnvelope[]): Promise<void> {
    await Promise.all([this.applyToUsers(events), this.independent.apply(events)]);
    // What this process just wrote is current here at once, before its own watch sees the events.
    this.observe(events);
  }

  /** The users read model, then the directory of each user whose listing may have changed. */
  private async applyToUsers(events: readonly EventEnvelope[]): Promise<void> {
    await this.usersProjection.apply(events);
    const listed = new Map<string, { appId: string; uid: string }>();
    for (const event of events) {
      if (isListingEvent(event)) listed.set(`${event.appId}:${String(event.data['uid'])}`, { appId: event.appId, uid: String(event.data['uid']) });
    }
    // As just written (no read per user); a document another writer changed since is read.
    const docs = await this.usersProjection.current([...listed.values()].map(({ appId, uid }) => userDocId(appId, uid)));
    await this.directory.syncAll([...docs.values()]);
  }

  async findUser(appId: string, uid: string): Promise<UserDoc | null> {
    const doc = await this.users.findOne({ _id: userDocId(appId, uid) } as Filter<Stored<UserDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  /** The users with these uids (absent ones left out), in one `_id` read (ADR 0011). */
  async findUsers(appId: string, uids: readonly string[]): Promise<Map<string, UserDoc>> {
    const docs = await findByIds(this.users, uids.map((uid) => userDocId(appId, uid)));
    return new Map([...docs.values()].map((doc) => [doc.uid, stripStoredFields<UserDoc>(doc)]));
  }

  /** Without filters, a page of the default listing costs two small reads (see projections/userDirectory). */
  private async listFromDirectory(appId: string, position: PagePosition, perPage: number): Promise<Page<UserDoc>> {
    if (position.after !== undefined) {
      const { total, users, more } = await this.directory.pageAfter(appId, String(position.after[0]), perPage);
      return { total, items: users, more };
    }
    const { total, users } = await this.directory.page(appId, position.skip / perPage + 1, perPage);
    return { total, items: users, more: position.skip + users.length < total };
  }

  async listUsers(appId: string, query: UserQuery): Promise<Page<UserDoc>> {
    const unfiltered = !query.search && !query.roles && !query.tags && !query.uids;
    if (unfiltered && query.states.length === 1 && query.states[0] === 'active') {
      return this.listFromDirectory(appId, query.position, query.perPage);
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
    const { total, items, more } = await findPage(this.users, filter as Filter<Stored<UserDoc>>, USER_ORDER, query.position, query.perPage);
    return { total, items: items.map((doc) => stripStoredFields(doc as Stored<UserDoc>)), more };
  }

  countUsersWithRole(appId: string, role: string): Promise<number> {
    return this.users.countDocuments({ appId, role, state: { $in: ['active', 'deactivated'] } });
  }

  async findToken(appId: string, tokenId: string): Promise<AuthTokenDoc | null> {
    const doc = await this.tokens.findOne({ _id: authTokenDocId(appId, tokenId) } as Filter<Stored<AuthTokenDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  async listTokens(appId: string, uid: string, position: PagePosition, perPage: number): Promise<Page<AuthTokenDoc>> {
    const filter = { appId, uid, revoked: false } as Filter<Stored<AuthTokenDoc>>;
    const { total, items, more } = await findPage(this.tokens, filter, TOKEN_ORDER, position, perPage);
    return { total, items: items.map((doc) => stripStoredFields(doc as Stored<AuthTokenDoc>)), more };
  }

  /** The live edges of one user, oldest first (friends are capped at 1000 per user upstream). */
  async relationsOf(kind: RelationKind, appId: string, owner: string): Promise<RelationDoc[]> {
    const docs = await this.relations[kind]
      .find({ appId, owner, active: true, ...BY_OWNER } as Filter<Stored<RelationDoc>>)
      .sort({ other: 1 })
      .toArray();
    return docs.map((doc) => stripStoredFields(doc));
  }

  /** Which of `others` `owner` has a live edge to (read one by one, as `findUsers`). */
  async related(kind: RelationKind, appId: string, owner: string, others: readonly string[]): Promise<Set<string>> {
    const related = new Set<string>();
    for (const other of new Set(others)) {
      const doc = await this.relations[kind].findOne({ _id: relationDocId(appId, owner, other) } as Filter<Stored<RelationDoc>>);
      if (doc?.active) related.add(other);
    }
    return related;
  }

  async findRole(appId: string, role: string): Promise<RoleDoc | null> {
    const doc = await this.roles.findOne({ _id: roleDocId(appId, role) } as Filter<Stored<RoleDoc>>);
    return doc && !doc.deleted ? stripStoredFields(doc) : null;
  }

  async listRoles(appId: string, position: PagePosition, perPage: number): Promise<Page<RoleDoc>> {
    const filter = { appId, deleted: false } as Filter<Stored<RoleDoc>>;
    const { total, items, more } = await findPage(this.roles, filter, ROLE_ORDER, position, perPage);
    return { total, items: items.map((doc) => stripStoredFields(doc as Stored<RoleDoc>)), more };
  }
}
