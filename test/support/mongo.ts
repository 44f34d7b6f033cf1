import { BSON, MongoClient } from 'mongodb';
import { inject } from 'vitest';

/** Counts a stream's commits in a service's event store: proof that a refused or idempotent call wrote nothing. */
export async function commitCount(service: 'users' | 'conversations' | 'messages' | 'management' | 'webhooks', streamId: string) {
  const client = new MongoClient(inject('mongoUrl'));
  try {
    await client.connect();
    return await client
      .db(`chat_${service}_${inject('databaseSuffix')}`)
      .collection('commits')
      .countDocuments({ streamId });
  } finally {
    await client.close();
  }
}

/**
 * A delivery's stored compare-and-set counter in the delivery log (1 means written once, never updated,
 * ADR 0044) and how long its first attempt took from being queued, which decides whether it had to be.
 */
export async function deliveryRevision(deliveryId: string): Promise<{ revision: number; queuedToDeliveredMs: number } | undefined> {
  const client = new MongoClient(inject('mongoUrl'));
  try {
    await client.connect();
    const found = await client
      .db(`chat_webhooks_${inject('databaseSuffix')}`)
      .collection<{ _id: string; _rev: number; queuedAt: number; deliveredAt?: number }>('deliveries')
      .findOne({ _id: deliveryId });
    if (!found) return undefined;
    return { revision: found._rev, queuedToDeliveredMs: (found.deliveredAt ?? Number.POSITIVE_INFINITY) - found.queuedAt };
  } finally {
    await client.close();
  }
}

/** Every document of every collection of every database of this run, as extended JSON (binary shows as base64). */
export async function everyDocument(): Promise<string[]> {
  const client = new MongoClient(inject('mongoUrl'));
  const suffix = `_${inject('databaseSuffix')}`;
  try {
    await client.connect();
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    const seen: string[] = [];
    for (const { name } of databases.filter((d) => d.name.endsWith(suffix))) {
      const db = client.db(name);
      for (const { name: collection } of await db.listCollections({}, { nameOnly: true }).toArray()) {
        for (const doc of await db.collection(collection).find({}).toArray()) seen.push(`${name}.${collection} ${BSON.EJSON.stringify(doc)}`);
      }
    }
    return seen;
  } finally {
    await client.close();
  }
}
