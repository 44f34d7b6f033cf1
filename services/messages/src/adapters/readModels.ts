import type { EventEnvelope } from '@chat/contracts';
import { GuardedProjectionWriter, isDuplicateKeyError, stripStoredFields } from '@chat/mongo';
import type { Stored } from '@chat/mongo';
import type { Db, Filter } from 'mongodb';
import { knownUserId, knownUsersProjection } from '../projections/users.js';
import type { KnownUserDoc } from '../projections/users.js';

interface SequenceDoc {
  _id: string;
  value: number;
}

export class MessagesReadModels {
  private readonly users: GuardedProjectionWriter<KnownUserDoc>;

  constructor(private readonly db: Db) {
    this.users = new GuardedProjectionWriter(db, 'known_users', knownUsersProjection);
  }

  apply(event: EventEnvelope): Promise<void> {
    return this.users.apply(event);
  }

  async findUser(appId: string, uid: string): Promise<KnownUserDoc | null> {
    const doc = await this.users.documents().findOne({ _id: knownUserId(appId, uid) } as Filter<Stored<KnownUserDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  /**
   * Message ids increase per app (CometChat ids are decimal strings). An atomic `$inc` on one
   * document per app; the first two concurrent upserts may collide on `_id`, and the loser retries.
   */
  async nextMessageId(appId: string): Promise<string> {
    const sequences = this.db.collection<SequenceDoc>('message_sequences');
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const doc = await sequences.findOneAndUpdate(
          { _id: appId },
          { $inc: { value: 1 } },
          { upsert: true, returnDocument: 'after' },
        );
        if (doc) return String(doc.value);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
    throw new Error(`could not allocate a message id for app ${appId}`);
  }
}
