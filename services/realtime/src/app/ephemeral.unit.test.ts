import { presenceOf } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { EphemeralBus, EphemeralNotice } from '../adapters/ephemeralBus.js';
import type { RedisPresence } from '../adapters/redisPresence.js';
import { BlockIndex } from '../domain/blockIndex.js';
import { MembershipIndex } from '../domain/membershipIndex.js';
import { LocalPresence } from '../domain/presence.js';
import { Connection, ConnectionRegistry } from './connections.js';
import { Ephemeral } from './ephemeral.js';

/** Two replicas over one in-memory "Redis": a hash per user and a bus every replica hears. */
function world() {
  const hashes = new Map<string, Record<string, string>>();
  /** Redis' side of the replicas: alive keys (expiry by the shared clock), the registry, each one's users. */
  const aliveUntil = new Map<string, number>();
  const beats = new Map<string, number>();
  const usersOf = new Map<string, Set<string>>();
  const published: EphemeralNotice[] = [];
  const replicas: Ephemeral[] = [];
  let clock = 0;
  const bus = { publish: (notice: EphemeralNotice) => (published.push(notice), replicas.forEach((r) => r.deliver(notice))) } as unknown as EphemeralBus;
  const replica = (name: string) => {
    const hash = (appId: string, uid: string) => hashes.get(`${appId}:${uid}`) ?? (hashes.set(`${appId}:${uid}`, {}), hashes.get(`${appId}:${uid}`)!);
    const own = () => usersOf.get(name) ?? (usersOf.set(name, new Set()), usersOf.get(name)!);
    const store = {
      online: (appId: string, uid: string, until: number, now: number) => {
        const h = hash(appId, uid);
        const before = presenceOf(h, now, name).status === 'offline';
        h[`r:${name}`] = String(until);
        own().add(`${appId}\n${uid}`);
        return Promise.resolve(before);
      },
      offline: (appId: string, uid: string, now: number) => {
        const h = hash(appId, uid);
        delete h[`r:${name}`];
        h['lastActiveAt'] = String(Math.floor(now / 1_000));
        own().delete(`${appId}\n${uid}`);
        return Promise.resolve(presenceOf(h, now).status === 'offline');
      },
      refresh: () => Promise.resolve(),
      beat: (now: number) => {
        const lapsed = (aliveUntil.get(name) ?? 0) <= now;
        aliveUntil.set(name, now + 5_000);
        beats.set(name, now);
        return Promise.resolve(lapsed);
      },
      sweep: (now: number) => {
        const swept: Array<{ appId: string; uid: string; lastActiveAt: number }> = [];
        for (const [dead, lastBeat] of beats) {
          if (dead === name || (aliveUntil.get(dead) ?? 0) > now) continue;
          for (const user of usersOf.get(dead) ?? []) {
            const [appId, uid] = user.split('\n') as [string, string];
            const h = hash(appId, uid);
            delete h[`r:${dead}`];
            if (presenceOf(h, now).status !== 'offline') continue;
            h['lastActiveAt'] = String(Math.floor(lastBeat / 1_000));
            swept.push({ appId, uid, lastActiveAt: Math.floor(lastBeat / 1_000) });
          }
          usersOf.delete(dead);
          beats.delete(dead);
        }
        return Promise.resolve(swept);
      },
    } as unknown as RedisPresence;
    const registry = new ConnectionRegistry();
    const index = new MembershipIndex();
    const blocks = new BlockIndex(10_000);
    const ephemeral = new Ephemeral({
      bus,
      store,
      local: new LocalPresence(3_000),
      registry,
      index,
      blocks,
      access: { userExists: () => Promise.resolve(true), isMember: (appId, guid, uid) => index.isMember(appId, guid, uid) },
      audienceOf: (_appId, uid) => Promise.resolve(uid === 'alice' ? ['friend'] : []),
      vouchMs: 10_000,
      now: () => clock,
      logger: pino({ level: 'silent' }),
    });
    replicas.push(ephemeral);
    const open = (uid: string) => {
      const sent: string[] = [];
      const connection = new Connection('app', uid, 't', { send: (text) => sent.push(text), bufferedBytes: () => 0, close: () => undefined }, 1_000);
      connection.state = 'live';
      if (registry.add(connection)) ephemeral.connected('app', uid);
      return { connection, sent, close: () => registry.remove(connection) && ephemeral.disconnected('app', uid) };
    };
    return { ephemeral, open, index, blocks };
  };
  return { replica, published, tick: (ms: number) => (clock += ms), settle: () => new Promise((r) => setTimeout(r, 0)) };
}

describe('typing and presence between replicas', () => {
  it('a user connected on two replicas is online once and offline only when both are gone, after the debounce', async () => {
    const w = world();
    const [one, two] = [w.replica('one'), w.replica('two')];
    const friend = one.open('friend');
    const a = one.open('alice');
    await w.settle();
    const b = two.open('alice');
    await w.settle();
    expect(w.published.filter((n) => n.kind === 'presence').map((n) => n.kind === 'presence' && n.status)).toEqual(['online']);
    expect(friend.sent.map((t) => JSON.parse(t))).toEqual([{ type: 'presence', data: { uid: 'alice', status: 'online', lastActiveAt: 0 } }]);
    a.close();
    w.tick(5_000);
    await one.ephemeral.tick();
    expect(w.published).toHaveLength(1);
    b.close();
    w.tick(2_000);
    await two.ephemeral.tick();
    expect(w.published).toHaveLength(1);
    w.tick(1_000);
    await two.ephemeral.tick();
    expect(w.published.at(-1)).toMatchObject({ kind: 'presence', uid: 'alice', status: 'offline', lastActiveAt: 8, audience: ['friend'] });
    expect(JSON.parse(friend.sent.at(-1)!)).toMatchObject({ type: 'presence', data: { status: 'offline' } });
  });

  it('a replica that stops beating has its users taken offline by another, once; a stalled one that returns puts them back', async () => {
    const w = world();
    const [one, two, three] = [w.replica('one'), w.replica('two'), w.replica('three')];
    const friend = one.open('friend');
    one.open('bob');
    two.open('alice');
    two.open('bob');
    await w.settle();
    for (const r of [one, two, three]) await r.ephemeral.watchReplicas();
    expect(friend.sent.map((t) => JSON.parse(t))).toEqual([{ type: 'presence', data: { uid: 'alice', status: 'online', lastActiveAt: 0 } }]);

    // `two` beats for the last time at 2 s, then is killed. Before its alive key lapses, nobody sweeps it.
    w.tick(2_000);
    for (const r of [one, two, three]) await r.ephemeral.watchReplicas();
    w.tick(4_000);
    await Promise.all([one.ephemeral.watchReplicas(), three.ephemeral.watchReplicas()]);
    expect(w.published.filter((n) => n.kind === 'presence' && n.status === 'offline')).toEqual([]);
    w.tick(1_500);
    await Promise.all([one.ephemeral.watchReplicas(), three.ephemeral.watchReplicas()]);
    const offline = w.published.filter((n) => n.kind === 'presence' && n.status === 'offline');
    // Alice, held by `two` alone, goes offline once with the time of `two`'s last beat; Bob is still on `one`.
    expect(offline).toEqual([{ kind: 'presence', appId: 'app', uid: 'alice', status: 'offline', lastActiveAt: 2, audience: ['friend'] }]);
    expect(JSON.parse(friend.sent.at(-1)!)).toEqual({ type: 'presence', data: { uid: 'alice', status: 'offline', lastActiveAt: 2 } });

    // `two` was only stalled: its next beat finds its alive key lapsed, and Alice comes back online.
    await two.ephemeral.watchReplicas();
    await w.settle();
    expect(w.published.at(-1)).toMatchObject({ kind: 'presence', uid: 'alice', status: 'online' });
  });

  it('typing reaches no user who blocked the sender or whom the sender blocked, one-on-one or in a group', async () => {
    const w = world();
    const [one, two] = [w.replica('one'), w.replica('two')];
    const alice = one.open('alice');
    const bob = two.open('bob');
    const carol = two.open('carol');
    for (const [r, uid] of [[one, 'alice'], [two, 'bob'], [two, 'carol']] as const) r.index.setUser('app', uid, ['crew']);
    // Bob blocked Alice (held on `two` as Bob's `blocked`); Carol was blocked by Alice (Carol's `blockedBy`).
    two.blocks.setUser('app', 'bob', { blocked: ['alice'], blockedBy: [] });
    two.blocks.setUser('app', 'carol', { blocked: [], blockedBy: ['alice'] });
    one.ephemeral.typing(alice.connection, { type: 'typing_started', receiver: 'bob', receiverType: 'user' });
    one.ephemeral.typing(alice.connection, { type: 'typing_started', receiver: 'carol', receiverType: 'user' });
    one.ephemeral.typing(alice.connection, { type: 'typing_started', receiver: 'crew', receiverType: 'group' });
    await w.settle();
    expect(w.published.filter((n) => n.kind === 'typing')).toHaveLength(3);
    expect([...bob.sent, ...carol.sent]).toEqual([]);

    // Bob unblocks Alice (the event, as the broadcast consumer reads it): her group typing reaches him again.
    two.blocks.apply({ type: 'UsersUnblocked', appId: 'app', data: { uid: 'bob', unblockedUids: ['alice'], unblockedAt: 1 } } as KnownEvent, 0);
    one.ephemeral.typing(alice.connection, { type: 'typing_started', receiver: 'crew', receiverType: 'group' });
    await w.settle();
    expect(bob.sent.map((t) => JSON.parse(t))).toEqual([{ type: 'typing_started', data: { sender: 'alice', receiver: 'crew', receiverType: 'group' } }]);
    expect(carol.sent).toEqual([]);
  });

  it('typing to a group reaches members on every replica but the sender; a refused frame gets an error', async () => {
    const w = world();
    const [one, two] = [w.replica('one'), w.replica('two')];
    const alice = one.open('alice');
    const bob = two.open('bob');
    one.index.setUser('app', 'alice', ['crew']);
    two.index.setUser('app', 'bob', ['crew']);
    one.ephemeral.typing(alice.connection, { type: 'typing_started', receiver: 'crew', receiverType: 'group' });
    await w.settle();
    expect(bob.sent.map((t) => JSON.parse(t))).toContainEqual({ type: 'typing_started', data: { sender: 'alice', receiver: 'crew', receiverType: 'group' } });
    expect(alice.sent.some((t) => t.includes('typing_started'))).toBe(false);
    two.ephemeral.typing(bob.connection, { type: 'typing_started', receiver: 'other', receiverType: 'group' });
    await w.settle();
    expect(JSON.parse(bob.sent.at(-1)!)).toMatchObject({ type: 'error', data: { code: 'ERR_GROUP_NOT_JOINED' } });
  });
});

describe('the presence heartbeat', () => {
  it('runs one refresh at a time: a heartbeat while one is in flight joins it', async () => {
    const calls: Array<{ users: number; until: number; done: () => void }> = [];
    const store = {
      refresh: (users: readonly unknown[], until: number) => new Promise<void>((done) => calls.push({ users: users.length, until, done })),
    } as unknown as RedisPresence;
    const local = new LocalPresence(3_000);
    local.connected('app\nalice');
    local.connected('app\nbob');
    let clock = 1_000;
    const ephemeral = new Ephemeral({
      bus: { publish: () => undefined } as unknown as EphemeralBus,
      store,
      local,
      registry: new ConnectionRegistry(),
      index: new MembershipIndex(),
      blocks: new BlockIndex(10_000),
      access: { userExists: () => Promise.resolve(true), isMember: () => false },
      audienceOf: () => Promise.resolve([]),
      vouchMs: 10_000,
      now: () => clock,
      logger: pino({ level: 'silent' }),
    });
    const first = ephemeral.heartbeat();
    clock = 4_000;
    const second = ephemeral.heartbeat();
    expect(calls).toEqual([{ users: 2, until: 11_000, done: expect.any(Function) }]);
    calls[0]!.done();
    await Promise.all([first, second]);
    void ephemeral.heartbeat();
    expect(calls.map((c) => c.until)).toEqual([11_000, 14_000]);
    calls[1]!.done();
  });
});
