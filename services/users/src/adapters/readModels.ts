import type { EventEnvelope } from '@chat/contracts';
import { GuardedProjectionWriter, ensureIndexes, stripStoredFields } from '@chat/mongo';
import type { Stored } from '@chat/mongo';
import type { Db, Filter } from 'mongodb';
import { userDocId, usersProjection } from '../projections/users.js';
import type { UserDoc } from '../projections/users.js';

export class UserReadModels {
  private readonly users: GuardedProjectionWriter<UserDoc>;

  constructor(private readonly db: Db) {
    this.users = new GuardedProjectionWriter(db, 'users', usersProjection);
  }

  ensureIndexes(): Promise<void> {
    return ensureIndexes(this.db, 'users', [{ keys: { appId: 1, uid: 1 }, options: { name: 'app_uid' } }]);
  }

  apply(event: EventEnvelope): Promise<void> {
    return this.users.apply(event);
  }

  async findUser(appId: string, uid: string): Promise<UserDoc | null> {
    const doc = await this.users.documents().findOne({ _id: userDocId(appId, uid) } as Filter<Stored<UserDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  async listUsers(appId: string, page: number, perPage: number): Promise<{ total: number; items: UserDoc[] }> {
    const collection = this.users.documents();
    const filter = { appId } as Filter<Stored<UserDoc>>;
    const [total, docs] = await Promise.all([
      collection.countDocuments(filter),
      collection
        .find(filter)
        .sort({ uid: 1 })
        .skip((page - 1) * perPage)
        .limit(perPage)
        .toArray(),
    ]);
    return { total, items: docs.map((doc) => stripStoredFields(doc)) };
  }
}
