import { describe, expect, it } from 'vitest';
import { groupSummaryOf } from './groups.js';

describe('groupSummaryOf', () => {
  it('keeps what other services show of a group, and no absent field', () => {
    const created = { guid: 'g1', name: 'G', type: 'public' as const, owner: 'o', icon: 'i.png', metadata: { a: 1 }, tags: ['t'], createdAt: 5 };
    expect(groupSummaryOf(created)).toEqual({ guid: 'g1', name: 'G', type: 'public', owner: 'o', icon: 'i.png' });
    expect(Object.keys(groupSummaryOf({ guid: 'g2', name: 'H', type: 'private', owner: '' }))).toEqual(['guid', 'name', 'type', 'owner']);
  });
});
