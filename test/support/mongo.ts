import { MongoClient } from 'mongodb';
import { inject } from 'vitest';

/** Counts a stream's commits in a service's event store: proof that a refused or idempotent call wrote nothing. */
export async function commitCount(service: 'users' | 'conversations' | 'messages' | 'management', streamId: string) {
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
