import { testEnvelope } from '@chat/eventsourcing/testing';
import { InMemoryDocumentStore, ProjectionRuntime } from '@chat/mongo';
import { describe, expect, it, vi } from 'vitest';
import { recipientId, recipientsProjection } from './recipients.js';
import type { RecipientDocument } from './recipients.js';

const created = testEnvelope('UserCreated', 'user:app1:ann', 1, { uid: 'ann', name: 'Ann', role: 'default', tags: [], createdAt: 1 });
const id = recipientId('app1', 'ann');
const idsRead = (findMany: { mock: { calls: [readonly string[]][] } }) => findMany.mock.calls.flatMap(([ids]) => ids);

describe('notification recipients read model', () => {
  it('inserts a created user without reading it first, and a redelivered creation changes nothing', async () => {
    const store = new InMemoryDocumentStore();
    const findMany = vi.spyOn(store, 'findMany');
    await new ProjectionRuntime(recipientsProjection, store).apply([created]);
    expect(idsRead(findMany)).toEqual([]);
    const first = store.stored();
    expect(first).toMatchObject([{ _id: id, exists: true, active: true, _rev: 1 }]);

    await new ProjectionRuntime(recipientsProjection, store).apply([created]);
    expect(idsRead(findMany)).toEqual([id]);
    expect(store.stored()).toEqual(first);
  });

  it('keeps what the recipient stream wrote before the user’s creation arrived', async () => {
    const store = new InMemoryDocumentStore();
    const timezone = testEnvelope('NotificationTimezoneSet', 'recipient:app1:ann', 1, { uid: 'ann', timezone: 'Europe/Paris', setAt: 1 });
    await new ProjectionRuntime(recipientsProjection, store).apply([timezone]);
    const before = store.document<RecipientDocument>(id);
    await new ProjectionRuntime(recipientsProjection, store).apply([created]);
    expect(before).toMatchObject({ timezone: 'Europe/Paris', exists: false });
    expect(store.document<RecipientDocument>(id)).toEqual({ ...before, exists: true, active: true });
  });
});
