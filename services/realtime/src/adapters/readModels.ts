import { ProjectedReadModels, ensureIndexes } from '@chat/mongo';
import type { Stored } from '@chat/mongo';
import type { Collection, Filter } from 'mongodb';
import { groupMembersProjection } from '../projections/groupMembers.js';
import type { GroupMembersDoc } from '../projections/groupMembers.js';
import { friendsProjection, knownUsersProjection, userDocId } from '../projections/users.js';
import type { FriendsDoc, KnownUserDoc } from '../projections/users.js';

/**
 * Realtime's read models: group members (read once per user when its first connection opens), the
 * app's users (a typing notice's one-on-one receiver) and friends (a presence change's audience).
 */
export class RealtimeReadModels extends ProjectedReadModels {
  private readonly groups: Collection<Stored<GroupMembersDoc>> = this.projected('group_members', groupMembersProjection);
  private readonly users: Collection<Stored<KnownUserDoc>> = this.projected('known_users', knownUsersProjection);
  private readonly friendships: Collection<Stored<FriendsDoc>> = this.projected('friends', friendsProjection);

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, 'group_members', [{ keys: { appId: 1, members: 1 }, options: { name: 'app_member' } }]);
  }

  /** The guids of the app's groups the user is a member of. */
  async groupsOf(appId: string, uid: string): Promise<string[]> {
    const docs = await this.groups.find({ appId, members: uid } as Filter<Stored<GroupMembersDoc>>, { projection: { guid: 1 } }).toArray();
    return docs.map((doc) => doc.guid);
  }

  async userExists(appId: string, uid: string): Promise<boolean> {
    return (await this.users.countDocuments({ _id: userDocId(appId, uid) }, { limit: 1 })) > 0;
  }

  async friendsOf(appId: string, uid: string): Promise<string[]> {
    const doc = await this.friendships.findOne({ _id: userDocId(appId, uid) } as Filter<Stored<FriendsDoc>>, { projection: { friends: 1 } });
    return doc?.friends ?? [];
  }
}
