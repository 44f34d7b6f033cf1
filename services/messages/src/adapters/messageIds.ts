import { Coalescer } from '@chat/eventsourcing';
import { isDuplicateKeyError } from '@chat/mongo';
import type { Db } from 'mongodb';

/** An app's message-id counter: the last id handed out. */
interface SequenceDoc {
  _id: string;
  value: number;
}

/**
 * Message ids of an app (CometChat ids are decimal strings that grow), from one counter document per
 * app in `message_sequences`. Not a read model: no event writes it, and a replay never rebuilds it.
 */
export class MessageIds {
  // Gathered over the loop's turn: the sends queued behind a stream's turn ask for their ids together
  // when its append is acknowledged (the command runner's `prepare`), and share one update.
  private readonly requests = new Coalescer<number, string[]>((appId, counts) => this.allocateBatch(appId, counts), { gatherTurn: true });

  constructor(private readonly db: Db) {}

  /**
   * Reserves `count` consecutive message ids of an app. Concurrent requests of one app share one
   * atomic `$inc` on the app's counter document, handed out in arrival order: one write for a burst
   * of sends instead of one each.
   */
  allocate(appId: string, count = 1): Promise<string[]> {
    return this.requests.submit(appId, count);
  }

  private async allocateBatch(appId: string, counts: number[]): Promise<string[][]> {
    const total = counts.reduce((sum, count) => sum + count, 0);
    let next = (await this.incrementSequence(appId, total)) - total + 1;
    return counts.map((count) => {
      const ids = Array.from({ length: count }, (_, index) => String(next + index));
      next += count;
      return ids;
    });
  }

  /** Adds `count` to the app's counter and returns the new value; the first two upserts may collide. */
  private async incrementSequence(appId: string, count: number): Promise<number> {
    const sequences = this.db.collection<SequenceDoc>('message_sequences');
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const doc = await sequences.findOneAndUpdate({ _id: appId }, { $inc: { value: count } }, { upsert: true, returnDocument: 'after' });
        if (doc) return doc.value;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
    throw new Error(`could not allocate a message id for app ${appId}`);
  }
}
