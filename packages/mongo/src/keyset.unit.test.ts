import { describe, expect, it } from 'vitest';
import { keysetAfter, keysetKeyOf, keysetSort } from './keyset.js';
import type { KeysetOrder } from './keyset.js';

describe('keyset filters', () => {
  const order: KeysetOrder = [
    ['createdAt', -1],
    ['uid', 1],
  ];

  it('keeps what sorts strictly after the key, field by field', () => {
    expect(keysetAfter(order, [10, 'b'])).toEqual({ $or: [{ createdAt: { $lt: 10 } }, { createdAt: 10, uid: { $gt: 'b' } }] });
    expect(keysetAfter([['role', 1]], ['r'])).toEqual({ role: { $gt: 'r' } });
  });

  it('sorts and keys documents by the same order', () => {
    expect(keysetSort(order)).toEqual({ createdAt: -1, uid: 1 });
    expect(keysetKeyOf(order, { createdAt: 7, uid: 'u', other: 1 })).toEqual([7, 'u']);
  });
});
