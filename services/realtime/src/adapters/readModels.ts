import { ProjectedReadModels, ensureIndexes } from '@chat/mongo';
import type { Stored } from '@chat/mongo';
import type { Collection, Filter } from 'mongodb';
import { groupMembersProjection } from '../projections/groupMembers.js';
import type { GroupMembersDoc } from '../projections/groupMembers.js';

/** Realtime's one read model: group members, read once per user when its first connection opens. */
export class RealtimeReadModels extends ProjectedReadModels {
  private readonly groups: Collection<Stored<GroupMembersDoc>> = this.projected('group_members', groupMembersProjection);

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, 'group_members', [{ keys: { appId: 1, members: 1 }, options: { name: 'app_member' } }]);
  }

  /** The guids of the app's groups the user is a member of. */
  async groupsOf(appId: string, uid: string): Promise<string[]> {
    const docs = await this.groups.find({ appId, members: uid } as Filter<Stored<GroupMembersDoc>>, { projection: { guid: 1 } }).toArray();
    return docs.map((doc) => doc.guid);
  }
}
