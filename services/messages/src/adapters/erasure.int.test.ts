import { randomBytes } from 'node:crypto';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageDocId } from '../projections/messages.js';
import { MessagesReadModels } from './readModels.js';

// A permanent user deletion erases the user's messages for good, even when the own-events group of
// another replica re-applies a `MessageSent` after the erasure (two replicas, one FerretDB).
const sent = (id: string, sender: string, receiver: string) =>
  testEnvelope('MessageSent', `messages:app1:${[sender, receiver].sort().join('_user_')}`, Number(id), {
    id,
    conversationId: [sender, receiver].sort().join('_user_'),
    sender,
    receiver,
    receiverType: 'user',
    category: 'message',
    type: 'text',
    data: { text: `message ${id}` },
    sentAt: Number(id),
  });
const deleted = (uid: string) => testEnvelope('UserDeleted', `user:app1:${uid}`, 2, { uid, permanent: true, deletedAt: 50 });

describe('erasing a permanently deleted user’s messages on FerretDB', () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  const db = client.db(`erasure_test_${randomBytes(4).toString('hex')}`);
  const stored = async (...ids: string[]) =>
    (await db.collection('messages').find({ _id: { $in: ids.map((id) => messageDocId('app1', id)) } } as never).toArray()).map((doc) => doc['id']);

  beforeAll(async () => {
    await client.connect();
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('erases again once the own-events group caught up, so a heal that came between does not bring a message back', async () => {
    const toHank = sent('1', 'ivy', 'hank');
    const fromHank = sent('2', 'hank', 'ivy');
    const kept = sent('3', 'ivy', 'ann');
    const sending = new MessagesReadModels(db);
    await sending.apply([toHank, fromHank, kept]); // the send path applies before it answers
    // The other replica's own-events group, behind, re-applies the sends while the erasure waits for it.
    const healing = new MessagesReadModels(db);
    let waited = 0;
    const erasing = new MessagesReadModels(db, {
      untilOwnTopicApplied: async () => {
        waited += 1;
        expect(await stored('1', '2')).toEqual([]); // the first pass already erased them
        await healing.apply([toHank, fromHank, kept]);
        expect(await stored('1', '2')).toEqual(['1', '2']); // an erased document has no positions to refuse a heal
        return true;
      },
    });
    await erasing.apply([deleted('hank')]);
    expect(waited).toBe(1);
    expect(await stored('1', '2', '3')).toEqual(['3']);
  });

  it('fails the batch (so the consumer retries it) when the own-events group does not catch up in time', async () => {
    const erasing = new MessagesReadModels(db, { untilOwnTopicApplied: async () => false });
    await expect(erasing.apply([deleted('zed')])).rejects.toThrow(/did not catch up/);
  });

  it('a deletion that is not permanent erases nothing and does not wait', async () => {
    await new MessagesReadModels(db).apply([sent('4', 'ula', 'vic')]);
    const erasing = new MessagesReadModels(db, { untilOwnTopicApplied: async () => expect.unreachable('no wait') });
    await erasing.apply([testEnvelope('UserDeleted', 'user:app1:ula', 2, { uid: 'ula', permanent: false, deletedAt: 50 })]);
    expect(await stored('4')).toEqual(['4']);
  });
});
