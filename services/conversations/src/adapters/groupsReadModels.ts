import type { EventEnvelope, GroupScope, GroupType } from '@chat/contracts';
import { allOf, ensureIndexes, mongoProjection, stripStoredFields } from '@chat/mongo';
import type { EventApplier, Stored } from '@chat/mongo';
import type { Collection, Db, Filter, Sort } from 'mongodb';
import { bansProjection } from '../projections/bans.js';
import type { BanDoc } from '../projections/bans.js';
import { groupDocId, groupsProjection } from '../projections/groups.js';
import type { GroupDoc } from '../projections/groups.js';
import { groupMemberDocId } from '../projections/groupsEvents.js';
import { membersProjection } from '../projections/members.js';
import type { MemberDoc } from '../projections/members.js';

export interface Page<T> {
  total: number;
  items: T[];
}

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

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Read models of groups, members and bans; the same projection runtimes serve Kafka and read-your-writes. */
export class GroupReadModels implements EventApplier {
  private readonly projections: EventApplier;
  private readonly groups: Collection<Stored<GroupDoc>>;
  private readonly members: Collection<Stored<MemberDoc>>;
  private readonly bans: Collection<Stored<BanDoc>>;

  constructor(private readonly db: Db) {
    this.projections = allOf(
      mongoProjection(db, 'groups', groupsProjection),
      mongoProjection(db, 'group_members', membersProjection),
      mongoProjection(db, 'group_bans', bansProjection),
    );
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

  /** Applies a batch to every group read model; safe to call any number of times. */
  apply(events: readonly EventEnvelope[]): Promise<void>;
  /** @deprecated One event at a time, until the command runner hands over whole batches. */
  apply(event: EventEnvelope): Promise<void>;
  async apply(input: EventEnvelope | readonly EventEnvelope[]): Promise<void> {
    const events = Array.isArray(input) ? (input as readonly EventEnvelope[]) : [input as EventEnvelope];
    await this.projections.apply(events);
    for (const event of events) if (event.type === 'GroupDeleted') await this.retireGroup(event);
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

  async listGroups(appId: string, query: GroupQuery, page: number, perPage: number): Promise<Page<GroupDoc>> {
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
    const sort: Sort = sortField === 'guid' ? { guid: direction } : { [sortField]: direction, guid: direction };
    const filter = { $and: and } as Filter<Stored<GroupDoc>>;
    const collection = this.groups;
    const [total, docs] = await Promise.all([
      collection.countDocuments(filter),
      collection.find(filter).sort(sort).skip((page - 1) * perPage).limit(perPage).toArray(),
    ]);
    return { total, items: docs.map((doc) => stripStoredFields(doc)) };
  }

  async listMembers(appId: string, guid: string, scopes: readonly GroupScope[] | undefined, page: number, perPage: number): Promise<Page<MemberDoc>> {
    const filter = { appId, guid, active: true, ...(scopes ? { scope: { $in: [...scopes] } } : {}) } as Filter<Stored<MemberDoc>>;
    return this.page(this.members, filter, { joinedAt: 1, uid: 1 }, page, perPage);
  }

  async listBans(appId: string, guid: string, page: number, perPage: number): Promise<Page<BanDoc>> {
    const filter = { appId, guid, active: true } as Filter<Stored<BanDoc>>;
    return this.page(this.bans, filter, { bannedAt: 1, uid: 1 }, page, perPage);
  }

  private async page<Doc extends object>(
    collection: Collection<Stored<Doc>>,
    filter: Filter<Stored<Doc>>,
    sort: Sort,
    page: number,
    perPage: number,
  ): Promise<Page<Doc>> {
    const [total, docs] = await Promise.all([
      collection.countDocuments(filter),
      collection.find(filter).sort(sort).skip((page - 1) * perPage).limit(perPage).toArray(),
    ]);
    return { total, items: docs.map((doc) => stripStoredFields(doc as Stored<Doc>)) };
  }
}
