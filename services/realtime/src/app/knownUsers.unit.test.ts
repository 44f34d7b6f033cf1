import { describe, expect, it } from 'vitest';
import { KnownUsers } from './knownUsers.js';

describe('known users (read-through to the users service)', () => {
  it('asks once for a user that exists, every time for one that does not', async () => {
    const asked: string[] = [];
    const users = new KnownUsers((appId, uid) => {
      asked.push(`${appId}/${uid}`);
      return Promise.resolve(uid === 'ann');
    }, 10);
    expect(await users.exists('app1', 'ann')).toBe(true);
    expect(await users.exists('app1', 'ann')).toBe(true);
    expect(await users.exists('app1', 'bob')).toBe(false);
    expect(await users.exists('app1', 'bob')).toBe(false);
    expect(await users.exists('app2', 'ann')).toBe(true);
    expect(asked).toEqual(['app1/ann', 'app1/bob', 'app1/bob', 'app2/ann']);
  });

  it('asks again after a deletion, and does not keep an answer asked before one', async () => {
    let exists = true;
    let release: () => void = () => undefined;
    let asks = 0;
    const users = new KnownUsers(async () => {
      asks += 1;
      if (asks === 2) await new Promise<void>((resolve) => (release = resolve));
      return exists;
    }, 10);
    expect(await users.exists('app1', 'ann')).toBe(true);
    users.forget('app1', 'ann');
    // Asked before the deletion below is seen: its "yes" is answered but not remembered.
    const inFlight = users.exists('app1', 'ann');
    await Promise.resolve();
    users.forget('app1', 'ann');
    release();
    expect(await inFlight).toBe(true);
    exists = false;
    expect(await users.exists('app1', 'ann')).toBe(false);
    expect(asks).toBe(3);
  });

  it('starts over when full rather than grow without bound', async () => {
    let asks = 0;
    const users = new KnownUsers(() => {
      asks += 1;
      return Promise.resolve(true);
    }, 2);
    for (const uid of ['a', 'b', 'c', 'a']) await users.exists('app1', uid);
    expect(asks).toBe(4);
  });
});
