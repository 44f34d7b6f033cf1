import { describe, expect, it } from 'vitest';
import { presenceOf } from '@chat/contracts';
import { RecentPeers } from './peers.js';
import { LocalPresence } from './presence.js';

describe('local presence (debounced)', () => {
  it('comes online with the first connection and goes offline only after the debounce', () => {
    const presence = new LocalPresence(3_000);
    expect(presence.connected('a')).toBe(true);
    expect(presence.connected('a')).toBe(false);
    presence.disconnected('a', 0);
    expect(presence.due(10_000)).toEqual([]);
    presence.disconnected('a', 1_000);
    expect(presence.due(3_999)).toEqual([]);
    expect(presence.vouched()).toEqual(['a']);
    expect(presence.due(4_000)).toEqual(['a']);
    expect(presence.vouched()).toEqual([]);
    expect(presence.connected('a')).toBe(true);
  });

  it('a reconnect within the debounce is no change at all', () => {
    const presence = new LocalPresence(3_000);
    presence.connected('a');
    presence.disconnected('a', 0);
    expect(presence.connected('a')).toBe(false);
    expect(presence.due(60_000)).toEqual([]);
    presence.disconnected('a', 60_000);
    expect(presence.due(63_000)).toEqual(['a']);
  });
});

describe('presence in redis', () => {
  it('is online while any replica vouches, offline with lastActiveAt once none does', () => {
    expect(presenceOf({ 'r:one': '5000', lastActiveAt: '1' }, 4_000)).toEqual({ status: 'online', lastActiveAt: 4 });
    expect(presenceOf({ 'r:one': '5000', lastActiveAt: '1' }, 5_000)).toEqual({ status: 'offline', lastActiveAt: 1 });
    expect(presenceOf({ 'r:one': '5000' }, 4_000, 'one')).toEqual({ status: 'offline' });
    expect(presenceOf({}, 4_000)).toEqual({ status: 'offline' });
  });
});

describe('recent one-on-one peers', () => {
  const sent = (sender: string, receiver: string, receiverType: 'user' | 'group' = 'user') =>
    ({ type: 'MessageSent', appId: 'app', data: { sender, receiver, receiverType } }) as never;

  it('knows who wrote to whom within the window, not group members', () => {
    const peers = new RecentPeers({ maxAgeMs: 1_000, maxPairs: 10 });
    peers.observe(sent('alice', 'bob'), 0);
    peers.observe(sent('carol', 'alice'), 500);
    peers.observe(sent('dave', 'crew', 'group'), 500);
    expect(peers.peersOf('app', 'alice').sort()).toEqual(['bob', 'carol']);
    expect(peers.peersOf('app', 'dave')).toEqual([]);
    peers.evict(1_200);
    expect(peers.peersOf('app', 'alice')).toEqual(['carol']);
    expect(peers.peersOf('app', 'bob')).toEqual([]);
  });

  it('keeps at most maxPairs, dropping the oldest', () => {
    const peers = new RecentPeers({ maxAgeMs: 60_000, maxPairs: 1 });
    peers.observe(sent('alice', 'bob'), 0);
    peers.observe(sent('alice', 'carol'), 1);
    expect(peers.peersOf('app', 'alice')).toEqual(['carol']);
  });
});
