import { createHash } from 'node:crypto';
import type { AuthTokenOwner } from '@chat/contracts';
import { describe, expect, it, vi } from 'vitest';
import { AUTH_TOKEN_CACHE, AuthTokenResolver } from './authTokens.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A users service in memory: live tokens by `<appId>:<sha256>`, as its read model keys them. */
function setup() {
  let now = 0;
  const live = new Map<string, AuthTokenOwner>();
  const load = vi.fn((appId: string, tokenHash: string) => Promise.resolve(live.get(`${appId}:${tokenHash}`) ?? null));
  const resolver = new AuthTokenResolver(load, () => {}, () => now);
  const issue = (appId: string, uid: string, token: string) => live.set(`${appId}:${sha256(token)}`, { uid, tokenId: sha256(token) });
  const revoke = (appId: string, token: string) => live.delete(`${appId}:${sha256(token)}`);
  return { resolver, load, issue, revoke, advance: (ms: number) => (now += ms) };
}

describe('AuthTokenResolver', () => {
  it("asks by the token's SHA-256, never the token, and answers the owner", async () => {
    const { resolver, load, issue } = setup();
    issue('app-a', 'alice', 'alice_1700000000abc');
    expect(await resolver.resolve('app-a', 'alice_1700000000abc')).toEqual({ uid: 'alice', tokenId: sha256('alice_1700000000abc') });
    expect(load).toHaveBeenCalledWith('app-a', sha256('alice_1700000000abc'));
    expect(JSON.stringify(load.mock.calls)).not.toContain('alice_1700000000abc');
  });

  it('serves a hot token from memory, without a promise, and refreshes it in the background', async () => {
    const { resolver, load, issue, advance } = setup();
    issue('app-a', 'alice', 'tok');
    await resolver.resolve('app-a', 'tok');
    advance(100);
    expect(resolver.resolve('app-a', 'tok')).toEqual({ uid: 'alice', tokenId: sha256('tok') });
    expect(load).toHaveBeenCalledTimes(1);
    advance(AUTH_TOKEN_CACHE.refreshAfterMs);
    expect(resolver.resolve('app-a', 'tok')).not.toBeInstanceOf(Promise);
    await vi.waitFor(() => expect(load).toHaveBeenCalledTimes(2));
  });

  it('is app-scoped: the same token in another app is unknown', async () => {
    const { resolver, load, issue } = setup();
    issue('app-a', 'alice', 'tok');
    expect(await resolver.resolve('app-b', 'tok')).toBeNull();
    expect(load).toHaveBeenLastCalledWith('app-b', sha256('tok'));
    expect(await resolver.resolve('app-a', 'tok')).not.toBeNull();
  });

  it('resolves a revoked token to null within 1 s of the revocation, never to its owner later', async () => {
    const { resolver, issue, revoke, advance } = setup();
    issue('app-a', 'alice', 'tok');
    expect(await resolver.resolve('app-a', 'tok')).not.toBeNull();
    revoke('app-a', 'tok');
    const served: { at: number; live: boolean }[] = [];
    for (let at = 0; at <= 3_000; at += 50) {
      served.push({ at, live: (await resolver.resolve('app-a', 'tok')) !== null });
      advance(50);
    }
    const stale = served.filter((read) => read.live);
    expect(stale.length).toBeGreaterThan(0); // a cache, not a pass-through…
    expect(Math.max(...stale.map((read) => read.at))).toBeLessThan(AUTH_TOKEN_CACHE.maxAgeMs); // …never a second old
    expect(await resolver.resolve('app-a', 'tok')).toBeNull();
  });

  it('remembers an unknown token as unknown for 1 s at most', async () => {
    const { resolver, issue, advance } = setup();
    expect(await resolver.resolve('app-a', 'later')).toBeNull();
    issue('app-a', 'alice', 'later');
    advance(AUTH_TOKEN_CACHE.negativeTtlMs);
    expect(await resolver.resolve('app-a', 'later')).toEqual({ uid: 'alice', tokenId: sha256('later') });
  });

  it('rejects when the users service cannot answer, and does not remember the failure', async () => {
    let failing = true;
    const resolver = new AuthTokenResolver(
      () => (failing ? Promise.reject(new Error('users down')) : Promise.resolve({ uid: 'alice', tokenId: 'x' })),
      () => {},
    );
    await expect(Promise.resolve(resolver.resolve('app-a', 'tok'))).rejects.toThrow('users down');
    failing = false;
    expect(await resolver.resolve('app-a', 'tok')).toEqual({ uid: 'alice', tokenId: 'x' });
  });
});
