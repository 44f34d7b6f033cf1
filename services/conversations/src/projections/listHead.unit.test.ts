import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UserConversationDoc } from '../domain/conversationView.js';
import { compareEntries, updateListHead } from './listHead.js';
import type { HeadEntry, ListHeadDoc } from './listHead.js';

const doc = (conversationId: string, listed: boolean, updatedAt: number, pinOrder?: number) =>
  ({
    conversationId,
    listed,
    updatedAt,
    lastMessageSeq: updatedAt,
    ...(pinOrder !== undefined ? { pinnedAt: 1, pinOrder } : {}),
  }) as unknown as UserConversationDoc;

describe('list head', () => {
  it('stays a correct prefix of the list order, with the right count, as conversations move, appear and go (size 3)', () => {
    const change = fc.record({ conversation: fc.nat(7), listed: fc.boolean(), updatedAt: fc.nat(40) });
    fc.assert(
      fc.property(fc.array(change, { maxLength: 80 }), (changes) => {
        const truth = new Map<string, { listed: boolean; updatedAt: number }>();
        let head: ListHeadDoc | null = null;
        for (const c of changes) {
          const id = `c${c.conversation}`;
          const before = truth.get(id)?.listed ?? false;
          truth.set(id, { listed: c.listed, updatedAt: c.updatedAt });
          head = updateListHead(head, { appId: 'app', owner: 'u', conversationId: id }, doc(id, c.listed, c.updatedAt), (c.listed ? 1 : 0) - (before ? 1 : 0), 3);
        }
        const order: HeadEntry[] = [...truth.entries()]
          .filter(([, v]) => v.listed)
          .map(([conversationId, v]) => ({ conversationId, updatedAt: v.updatedAt, lastMessageSeq: v.updatedAt }))
          .sort(compareEntries);
        expect(head?.total ?? 0).toBe(order.length);
        expect(head?.entries ?? []).toEqual(order.slice(0, head?.entries.length ?? 0));
        expect((head?.entries.length ?? 0) <= 3).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the user’s own pins newest first', () => {
    let head = updateListHead(null, { appId: 'a', owner: 'u', conversationId: 'x' }, doc('x', true, 1, 4), 1);
    head = updateListHead(head, { appId: 'a', owner: 'u', conversationId: 'y' }, doc('y', true, 2, 7), 1);
    expect(head.pins.map((p) => p.conversationId)).toEqual(['y', 'x']);
    head = updateListHead(head, { appId: 'a', owner: 'u', conversationId: 'y' }, doc('y', true, 2), 0);
    expect(head.pins.map((p) => p.conversationId)).toEqual(['x']);
  });
});
