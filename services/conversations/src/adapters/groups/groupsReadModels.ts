import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '@chat/contracts';
import type { EventEnvelope, GroupScope, GroupType } from '@chat/contracts';
import { allOf, ensureIndexes, escapeRegex, findByIds, findPage, keysetKeyOf, mongoProjection, stripStoredFields } from '@chat/mongo';
import type { EventApplier, KeysetOrder, PagePosition, Stored } from '@chat/mongo';
import type { Collection, Db, Filter } from 'mongodb';
import { bansProjection } from '../../projections/groups/bans.js';
import type { BanDoc } from '../../projections/groups/bans.js';
import { groupDocId, groupsProjection } from '../../projections/groups/groups.js';
import type { GroupDoc } from '../../projections/groups/groups.js';
import { rosterOf } from '../../domain/groups/groupState.js';
import type { Roster } from '../../domain/groups/groupState.js';
import { groupMemberDocId } from '../../projections/groups/groupsEvents.js';
import { membersProjection } from '../../projections/groups/members.js';
import type { MemberDoc } from '../../projections/groups/members.js';

export interface Page<T> {
  total: number;
  items: T[];
  /** Whether items follow this page, and the key of its last item (for the next cursor). */
  more: boolean;
  last: (string | number)[] | undefined;
}

const MEMBER_ORDER: KeysetOrder = [
  ['joinedAt', 1],
  ['uid', 1],
];
const BAN_ORDER: KeysetOrder = [
  ['bannedAt', 1],
  ['uid', 1],
];

export interface GroupQuery {
  search?: { key: string; fields: Array<'name' | 'guid' | 'description'> };
  types?: GroupType[];
  tags?: string[];
  /** Only these guids (joined groups), or all but these (not joined). */
  guidsIn?: string[];
  guidsNotIn?: string[];
  /** Private groups are shown only when their guid is in this list (the acting user's groups). */
  privateVisibleTo?: string[];
  updatedAt?: { value: number; affix: 'append' | 'prepend' };
  sortBy: 'name' | 'guid' | 'createdAt';
  sortOrder: 'asc' | 'desc';
}

/** Read models of groups, members and bans; the same projection runtimes serve Kafka and read-your-writes. */
export class GroupReadModels implements EventApplier {
  /** Members and bans: applied before the group document (see `apply`). */
  private readonly memberships: EventApplier;
  private readonly groupDocs: EventApplier;
  private readonly groups: Collection<Stored<GroupDoc>>;
  private readonly members: Collection<Stored<MemberDoc>>;
  private readonly bans: Collection<Stored<BanDoc>>;

  constructor(private readonly db: Db) {
    this.memberships = allOf(mongoProjection(db, 'group_members', membersProjection), mongoProjection(db, 'group_bans', bansProjection));
    this.groupDocs = mongoProjection(db, 'groups', groupsProjection);
    this.groups = db.collection('groups');
    this.members = db.collection('group_members');
    this.bans = db.collection('group_bans');
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, 'groups', [
      { keys: { appId: 1, deleted: 1, nameKey: 1, guid: 1 }, options: { name: 'app_name' } },
      { keys: { appId: 1, deleted: 1, guid: 1 }, options: { name: 'app_guid' } },
      { keys: { appId: 1, deleted: 1, createdAt: 1, guid: 1 }, options: { name: 'app_created' } },
      { keys: { appId: 1, deleted: 1, updatedAt: 1 }, options: { name: 'app_updated' } },
    ]);
    await ensureIndexes(this.db, 'group_members', [
      { keys: { appId: 1, guid: 1, active: 1, joinedAt: 1, uid: 1 }, options: { name: 'group_members' } },
      { keys: { appId: 1, uid: 1, active: 1, guid: 1 }, options: { name: 'user_groups' } },
    ]);
    await ensureIndexes(this.db, 'group_bans', [
      { keys: { appId: 1, guid: 1, active: 1, bannedAt: 1, uid: 1 }, options: { name: 'group_bans' } },
    ]);
  }

  /**
   * Applies a batch to every group read model; safe to call any number of times. The group documents
   * go last: a group document's position then says that its members and bans are applied up to it,
   * which is what `rosterAt` relies on.
   */
  async apply(events: readonly EventEnvelope[]): Promise<void> {
    await this.memberships.apply(events);
    for (const event of events) if (event.type === 'GroupDeleted') await this.retireGroup(event);
    await this.groupDocs.apply(events);
  }

  /**
   * The membership and bans of these users as of the group stream's `version`, for a command's
   * roster. Waits (briefly) while the read models have not applied that version yet: another
   * replica's command, or the consumer after a restart; past the wait the service is behind and
   * says so with a 503 rather than decide on an older roster.
   */
  async rosterAt(appId: string, guid: string, uids: readonly string[], version: number, patienceMs = 2_000): Promise<Roster> {
    const ids = [...new Set(uids)].map((uid) => groupMemberDocId(appId, guid, uid));
    const deadline = Date.now() + patienceMs;
    for (;;) {
      const group = await this.groups.findOne({ _id: groupDocId(appId, guid) } as Filter<Stored<GroupDoc>>, { projection: { _positions: 1 } });
      if (version === 0 || (group?._positions['group'] ?? 0) >= version) {
        const [members, bans] = await Promise.all([findByIds(this.members, ids), findByIds(this.bans, ids)]);
        return rosterOf([...members.values()], [...bans.values()]);
      }
      if (Date.now() >= deadline) {
        throw new ApiError('ERR_SERVICE_UNAVAILABLE', `The members of the group ${guid} are still being updated; retry shortly.`, { retryAfterSeconds: 1 });
      }
      await sleep(10);
    }
  }

  /**
   * GroupDeleted names no member, so its members and bans are retired here by a range update. The
   * filter is the position guard itself: documents already past this event (a later re-creation of
   * the guid) are untouched, and a redelivery finds nothing left to change.
   */
  private async retireGroup(event: EventEnvelope): Promise<void> {
    const guid = (event.data as { guid: string }).guid;
    const filter = { appId: event.appId, guid, '_positions.group': { $lt: event.version } };
    const update = { $set: { active: false, '_positions.group': event.version }, $inc: { _rev: 1 } };
    await this.members.updateMany(filter, update);
    await this.bans.updateMany(filter, update);
  }

  async findGroup(appId: string, guid: string): Promise<GroupDoc | null> {
    const doc = await this.groups.findOne({ _id: groupDocId(appId, guid) } as Filter<Stored<GroupDoc>>);
    return doc && !doc.deleted ? stripStoredFields(doc) : null;
  }

  /** The live groups with these guids (deleted and absent ones left out), in one read. */
  async findGroups(appId: string, guids: readonly string[]): Promise<Map<string, GroupDoc>> {
    const docs = await findByIds(this.groups, guids.map((guid) => groupDocId(appId, guid)));
    return new Map([...docs.values()].filter((doc) => !doc.deleted).map((doc) => [doc.guid, stripStoredFields<GroupDoc>(doc)]));
  }

  async findMember(appId: string, guid: string, uid: string): Promise<MemberDoc | null> {
    const doc = await this.members.findOne({ _id: groupMemberDocId(appId, guid, uid) } as Filter<Stored<MemberDoc>>);
    return doc?.active ? stripStoredFields(doc) : null;
  }

  /** The user's memberships, all of them or only in the given groups. */
  async membershipsOf(appId: string, uid: string, guids?: readonly string[]): Promise<Map<string, MemberDoc>> {
    if (guids?.length === 0) return new Map();
    const filter = { appId, uid, active: true, ...(guids ? { guid: { $in: [...guids] } } : {}) } as Filter<Stored<MemberDoc>>;
    const docs = await this.members.find(filter).toArray();
    return new Map(docs.map((doc) => [doc.guid, stripStoredFields(doc)]));
  }

  async listGroups(appId: string, query: GroupQuery, position: PagePosition, perPage: number): Promise<Page<GroupDoc>> {
    const and: Array<Record<string, unknown>> = [{ appId }, { deleted: { $exists: false } }];
    if (query.search) {
      const pattern = { $regex: escapeRegex(query.search.key), $options: 'i' };
      and.push({ $or: query.search.fields.map((field) => ({ [field === 'name' ? 'nameKey' : field]: pattern })) });
    }
    if (query.types) and.push({ type: { $in: query.types } });
    if (query.tags) and.push({ tags: { $in: query.tags } });
    if (query.guidsIn) and.push({ guid: { $in: query.guidsIn } });
    if (query.guidsNotIn) and.push({ guid: { $nin: query.guidsNotIn } });
    if (query.privateVisibleTo) and.push({ $or: [{ type: { $ne: 'private' } }, { guid: { $in: query.privateVisibleTo } }] });
    if (query.updatedAt) {
      and.push({ updatedAt: query.updatedAt.affix === 'append' ? { $gte: query.updatedAt.value } : { $lt: query.updatedAt.value } });
    }
    const direction = query.sortOrder === 'asc' ? 1 : -1;
    const sortField = { name: 'nameKey', guid: 'guid', createdAt: 'createdAt' }[query.sortBy];
    const order: KeysetOrder = sortField === 'guid' ? [['guid', direction]] : [[sortField, direction], ['guid', direction]];
    return this.page(this.groups, { $and: and }, order, position, perPage);
  }

  async listMembers(appId: string, guid: string, scopes: readonly GroupScope[] | undefined, position: PagePosition, perPage: number): Promise<Page<MemberDoc>> {
    const filter = { appId, guid, active: true, ...(scopes ? { scope: { $in: [...scopes] } } : {}) } as Filter<Stored<MemberDoc>>;
    return this.page(this.members, filter, MEMBER_ORDER, position, perPage);
  }

  async listBans(appId: string, guid: string, position: PagePosition, perPage: number): Promise<Page<BanDoc>> {
    const filter = { appId, guid, active: true } as Filter<Stored<BanDoc>>;
    return this.page(this.bans, filter, BAN_ORDER, position, perPage);
  }

  private async page<Doc extends object>(
    collection: Collection<Stored<Doc>>,
    filter: Filter<Stored<Doc>>,
    order: KeysetOrder,
    position: PagePosition,
    perPage: number,
  ): Promise<Page<Doc>> {
    const { total, items, more } = await findPage(collection, filter, order, position, perPage);
    const last = items.at(-1);
    return { total, items: items.map((doc) => stripStoredFields(doc as Stored<Doc>)), more, last: last ? keysetKeyOf(order, last) : undefined };
  }
}
