import { InMemoryDocumentStore } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { afterAttempt, queuedDelivery } from '../domain/delivery.js';
import type { DeliveryDocument } from '../domain/delivery.js';
import { DeliveryLog } from './deliveryLog.js';

const queued = (n: number): DeliveryDocument =>
  queuedDelivery({
    appId: 'app1',
    webhookId: 'w1',
    deliveryId: `d${n}`,
    trigger: 'message_sent',
    sourceEventId: `e${n}`,
    orderKey: 'messages:app1:c1',
    sourceVersion: n,
    body: JSON.stringify({ trigger: 'message_sent', data: { message: { id: String(n), text: 'a "quoted" text\n' } } }),
    occurredAt: 1_000 + n,
    queuedAt: 2_000 + n,
  });

describe('the delivery log stores the fields its queries read, and the rest as one JSON string', () => {
  it('gives a delivery back as it was given, through an insert, a guarded replace and a read', async () => {
    const store = new InMemoryDocumentStore();
    const log = new DeliveryLog(store);
    const first = queued(1);
    expect(await log.insert([first])).toEqual(new Set());
    expect(await log.find('d1')).toEqual({ document: first, rev: 1 });
    const delivered = afterAttempt(first, 1, { outcome: 'delivered', statusCode: 200, latencyMs: 4, responsePrefix: 'ok', at: 3_000 })!;
    expect(await log.replace(delivered, 1)).toBe(true);
    expect(await log.replace(delivered, 1)).toBe(false);
    expect(await log.find('d1')).toEqual({ document: delivered, rev: 2 });
    // What the store holds: the fields the log's queries (and the restart test) filter and sort on, and `packed`.
    const [stored] = store.stored();
    expect(Object.keys(stored!).sort()).toEqual(['_id', '_positions', '_rev', 'appId', 'attempts', 'packed', 'queuedAt', 'sourceVersion', 'status', 'webhookId']);
    expect(stored).toMatchObject({ _id: 'd1', appId: 'app1', webhookId: 'w1', status: 'delivered', attempts: 1, queuedAt: 2_001, sourceVersion: 1 });
  });

  it('reads a delivery an earlier build stored with every field of its own', async () => {
    const store = new InMemoryDocumentStore();
    const whole = queued(2);
    await store.insert([{ ...whole, _id: whole.deliveryId, _rev: 4, _positions: {} }]);
    expect(await new DeliveryLog(store).find('d2')).toEqual({ document: whole, rev: 4 });
  });
});
