import { ProjectedReadModels, findByIds } from '@chat/mongo';
import type { Stored } from '@chat/mongo';
import type { Collection, Filter } from 'mongodb';
import { deletedGroupDocId, deletedGroupsProjection, liveGroupsOf, userGroupsDocId, userGroupsProjection } from '../projections/userGroups.js';
import type { DeletedGroupDoc, UserGroupsDoc } from '../projections/userGroups.js';
import { blocksProjection, friendsProjection, userDocId } from '../projections/users.js';
import type { BlocksDoc, FriendsDoc } from '../projections/users.js';
import type { BlockFacts } from '../domain/blockIndex.js';

/**
 * Realtime's read models: a user's groups (read once per user when its first connection opens, by
 * `_id`: on this store any other filter scans every app's documents, ADR 0011), friends (a presence
 * change's audience) and blocks (whom a typing notice is kept from). Whether a typing notice's receiver
 * exists is asked of the users service, not kept here (ADR 0101).
 */
export class RealtimeReadModels extends ProjectedReadModels {
  private readonly userGroups: Collection<Stored<UserGroupsDoc>> = this.projected('user_groups', userGroupsProjection);
  private readonly deletedGroups: Collection<Stored<DeletedGroupDoc>> = this.projected('deleted_groups', deletedGroupsProjection);
  private readonly friendships: Collection<Stored<FriendsDoc>> = this.projected('friends', friendsProjection);
  private readonly blocks: Collection<Stored<BlocksDoc>> = this.projected('blocks', blocksProjection);

  /** The guids of the app's groups the user is a member of: two reads by `_id`. */
  async groupsOf(appId: string, uid: string): Promise<string[]> {
    const doc = await this.userGroups.findOne({ _id: userGroupsDocId(appId, uid) } as Filter<Stored<UserGroupsDoc>>, { projection: { appId: 1, uid: 1, groups: 1 } });
    if (!doc || doc.groups.length === 0) return [];
    const deleted = await findByIds(this.deletedGroups, doc.groups.map((g) => deletedGroupDocId(appId, g.guid)), { guid: 1, deletedAtVersion: 1 });
    return liveGroupsOf(doc, new Map([...deleted.values()].map((d) => [d.guid, d.deletedAtVersion])));
  }

  async friendsOf(appId: string, uid: string): Promise<string[]> {
    const doc = await this.friendships.findOne({ _id: userDocId(appId, uid) } as Filter<Stored<FriendsDoc>>, { projection: { friends: 1 } });
    return doc?.friends ?? [];
  }

  /** Whom the user blocked and who blocked it: one read by `_id`, when its first connection opens. */
  async blocksOf(appId: string, uid: string): Promise<BlockFacts> {
    const doc = await this.blocks.findOne({ _id: userDocId(appId, uid) } as Filter<Stored<BlocksDoc>>, { projection: { blocked: 1, blockedBy: 1 } });
    return { blocked: doc?.blocked ?? [], blockedBy: doc?.blockedBy ?? [] };
  }
}
