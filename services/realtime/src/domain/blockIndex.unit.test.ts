import type { KnownEvent } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { BlockIndex } from './blockIndex.js';

const blocked = (uid: string, ...others: string[]) => ({ type: 'UsersBlocked', appId: 'app', data: { uid, blockedUids: others, blockedAt: 1 } }) as unknown as KnownEvent;
const unblocked = (uid: string, ...others: string[]) => ({ type: 'UsersUnblocked', appId: 'app', data: { uid, unblockedUids: others, unblockedAt: 1 } }) as unknown as KnownEvent;

describe('BlockIndex: blocks of the users held here, both ways', () => {
  it('tracks held users only, on both sides of a block, until the last of two blocks is lifted', () => {
    const index = new BlockIndex(10_000);
    index.setUser('app', 'ann', { blocked: [], blockedBy: [] });
    index.setUser('app', 'ben', { blocked: [], blockedBy: [] });
    index.apply(blocked('ann', 'ben', 'cat'), 0);
    expect(index.apart('app', 'ann', 'ben')).toBe(true);
    expect(index.apart('app', 'ben', 'ann')).toBe(true);
    expect(index.apart('app', 'ann', 'cat')).toBe(true);
    expect(index.apart('app', 'cat', 'ann')).toBe(false); // not held here
    index.apply(blocked('ben', 'ann'), 0);
    index.apply(unblocked('ann', 'ben'), 0);
    expect(index.apart('app', 'ann', 'ben')).toBe(true); // Ben still blocks Ann
    index.apply(unblocked('ben', 'ann'), 0);
    expect(index.apart('app', 'ann', 'ben')).toBe(false);
    index.dropUser('app', 'ann');
    expect(index.holds('app', 'ann')).toBe(false);
  });

  it('folds the block events it remembers onto a load the read model had not caught up with, and forgets them after the memory', () => {
    const index = new BlockIndex(10_000);
    index.apply(blocked('dan', 'eve'), 1_000);
    index.setUser('app', 'eve', { blocked: [], blockedBy: [] });
    expect(index.apart('app', 'eve', 'dan')).toBe(true);
    index.forgetBefore(20_000);
    index.setUser('app', 'fay', { blocked: [], blockedBy: [] });
    index.apply(unblocked('dan', 'eve'), 20_000);
    index.setUser('app', 'eve', { blocked: [], blockedBy: ['dan'] });
    expect(index.apart('app', 'eve', 'dan')).toBe(false);
  });
});
