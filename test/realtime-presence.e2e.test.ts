import { setTimeout as sleep } from 'node:timers/promises';
import { startExtraGateway } from '@chat/devstack';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { userHash } from '../gateway/src/upstreamPool.js';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { sendText } from './support/conversations.js';
import { createGroup, createUsers } from './support/groups.js';
import { authToken, connect, killStrayReplicas, startRealtimeReplica } from './support/realtime.js';
import type { Frame, RealtimeClient } from './support/realtime.js';

const typing = (type: string, sender: string) => (frame: Frame) => frame.type === type && frame.data?.sender === sender;
const presence = (uid: string, status: string) => (frame: Frame) => frame.type === 'presence' && frame.data?.uid === uid && frame.data?.status === status;
const refused = (code: string) => (frame: Frame) => frame.type === 'error' && frame.data?.code === code;

/**
 * Realtime's read models of the app's users and of group members follow the topics: wait until they
 * know `receiver` (a user, or a group with `sender` in it).
 */
async function untilTypingReaches(from: RealtimeClient, to: RealtimeClient, sender: string, receiver: string, receiverType: 'user' | 'group' = 'user'): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    from.send({ type: 'typing_started', receiver, receiverType });
    if (await to.receives(typing('typing_started', sender), 200)) return;
  }
  throw new Error(`typing from ${sender} never reached ${receiver}`);
}

describe('typing and presence (realtime through the gateway, over Redis between replicas)', () => {
  let app: TestApp;
  let other: TestApp;
  const tokens: Record<string, string> = {};
  // A test that times out leaves what it started: its replica and gateway are stopped here all the same.
  let extraGateway: { stop(): Promise<void> } | null = null;
  afterAll(async () => {
    await killStrayReplicas();
    await extraGateway?.stop();
  });

  beforeAll(async () => {
    [app, other] = await Promise.all([createApp('presence'), createApp('presence other')]);
    await createUsers(app, 'alice', 'bob', 'carol', 'dave', 'erin');
    await createUsers(other, 'bob');
    for (const uid of ['alice', 'bob', 'carol', 'dave', 'erin']) tokens[uid] = await authToken(app, uid);
    tokens['otherbob'] = await authToken(other, 'bob');
    await createGroup(app, { guid: 'crew', name: 'Crew', type: 'public', owner: 'alice', members: { participants: ['bob'] } });
    expect((await app.call('POST', '/v3/users/alice/friends', { body: { accepted: ['dave'] } })).status).toBe(200);
  });

  it('one-on-one typing reaches the peer without a cursor, not a stranger nor another app', async () => {
    const [alice, bob, carol, bobElsewhere] = await Promise.all([
      connect(app.appId, tokens['alice']!),
      connect(app.appId, tokens['bob']!),
      connect(app.appId, tokens['carol']!),
      connect(other.appId, tokens['otherbob']!),
    ]);
    await untilTypingReaches(alice, bob, 'alice', 'bob');
    alice.send({ type: 'typing_ended', receiver: 'bob', receiverType: 'user' });
    const ended = await bob.next(typing('typing_ended', 'alice'));
    expect(ended).toEqual({ type: 'typing_ended', data: { sender: 'alice', receiver: 'bob', receiverType: 'user' } });
    expect(await carol.receives((f) => f.type.startsWith('typing'), 300)).toBe(false);
    expect(await bobElsewhere.receives((f) => f.type.startsWith('typing'), 100)).toBe(false);
    expect(await alice.receives((f) => f.type.startsWith('typing'), 100)).toBe(false);
    await Promise.all([alice, bob, carol, bobElsewhere].map((c) => c.close()));
  });

  it('group typing reaches the members but the sender; a non-member may not type to it', async () => {
    const [alice, bob, carol] = await Promise.all([connect(app.appId, tokens['alice']!), connect(app.appId, tokens['bob']!), connect(app.appId, tokens['carol']!)]);
    await untilTypingReaches(bob, alice, 'bob', 'crew', 'group');
    bob.send({ type: 'typing_started', receiver: 'crew', receiverType: 'group' });
    expect((await alice.next(typing('typing_started', 'bob'))).data).toEqual({ sender: 'bob', receiver: 'crew', receiverType: 'group' });
    carol.send({ type: 'typing_started', receiver: 'crew', receiverType: 'group' });
    expect((await carol.next(refused('ERR_GROUP_NOT_JOINED'))).data.message).toContain('crew');
    expect(await bob.receives(typing('typing_started', 'bob'), 300)).toBe(false);
    expect(await alice.receives(typing('typing_started', 'carol'), 100)).toBe(false);
    await Promise.all([alice, bob, carol].map((c) => c.close()));
  });

  it('typing reaches no user who blocked the sender or whom the sender blocked, one-on-one or in a group', async () => {
    const [alice, bob] = await Promise.all([connect(app.appId, tokens['alice']!), connect(app.appId, tokens['bob']!)]);
    await untilTypingReaches(alice, bob, 'alice', 'bob');
    await untilTypingReaches(alice, bob, 'alice', 'crew', 'group');
    expect((await app.call('POST', '/v3/users/bob/blockedusers', { body: { blockedUids: ['alice'] } })).status).toBe(200);
    // The block reaches realtime from the users topic like a revocation (milliseconds); leave it a second.
    await sleep(1_000);
    const [aliceHad, bobHad] = [alice.frames.length, bob.frames.length];
    alice.send({ type: 'typing_started', receiver: 'bob', receiverType: 'user' });
    alice.send({ type: 'typing_started', receiver: 'crew', receiverType: 'group' });
    bob.send({ type: 'typing_started', receiver: 'alice', receiverType: 'user' });
    bob.send({ type: 'typing_started', receiver: 'crew', receiverType: 'group' });
    await sleep(1_500);
    // Nothing at all: no typing frame either way, and no error frame to the sender (a block is not revealed).
    expect([...alice.frames.slice(aliceHad), ...bob.frames.slice(bobHad)]).toEqual([]);
    // Unblocked, the same notices arrive again.
    expect((await app.call('DELETE', '/v3/users/bob/blockedusers', { body: { blockedUids: ['alice'] } })).status).toBe(200);
    await untilTypingReaches(alice, bob, 'alice', 'crew', 'group');
    await untilTypingReaches(bob, alice, 'bob', 'alice');
    await Promise.all([alice.close(), bob.close()]);
  });

  it('refuses bad typing frames with an error frame and keeps the connection open', async () => {
    const alice = await connect(app.appId, tokens['alice']!);
    alice.send({ type: 'typing_started', receiverType: 'user' });
    expect((await alice.next(refused('ERR_BAD_FRAME'))).data.message).toContain('receiver');
    alice.send({ type: 'typing_started', receiver: 'nobody', receiverType: 'user' });
    expect((await alice.next(refused('ERR_UID_NOT_FOUND'))).data.message).toContain('nobody');
    alice.send({ type: 'ping' });
    await alice.next((f) => f.type === 'pong');
    await alice.close();
  });

  it('presence: a friend and a one-on-one peer are seen online and offline, and GET /users/{uid} agrees', async () => {
    await sendText(app, 'erin', 'alice', 'user', 'hello alice');
    const alice = await connect(app.appId, tokens['alice']!);
    const carol = await connect(app.appId, tokens['carol']!);
    const before = await app.call('GET', '/v3/users/dave');
    expect(before.body.data.status).toBe('offline');

    const dave = await connect(app.appId, tokens['dave']!);
    const online = await alice.next(presence('dave', 'online'));
    expect(Math.abs(online.data.lastActiveAt - Date.now() / 1_000)).toBeLessThan(5);
    expect(online.cursor).toBeUndefined();
    const shown = await app.call('GET', '/v3/users/dave');
    expect(shown.body.data).toMatchObject({ uid: 'dave', status: 'available' });

    const erin = await connect(app.appId, tokens['erin']!);
    await alice.next(presence('erin', 'online'));
    expect(await carol.receives((f) => f.type === 'presence', 300)).toBe(false);

    // A reconnect within the debounce is not seen; the last close is, a few seconds later.
    await dave.close();
    const again = await connect(app.appId, tokens['dave']!);
    expect(await alice.receives(presence('dave', 'offline'), 3_500)).toBe(false);
    const closedAt = Date.now();
    await again.close();
    const offline = await alice.next(presence('dave', 'offline'), 10_000);
    expect(Date.now() - closedAt).toBeLessThan(8_000);
    const after = await app.call('GET', '/v3/users/dave');
    expect(after.body.data).toMatchObject({ status: 'offline', lastActiveAt: offline.data.lastActiveAt });
    await Promise.all([alice.close(), carol.close(), erin.close()]);
  });

  it('crosses replicas: typing and presence reach a user held by another realtime replica', async () => {
    const replicas = inject('replicaUrls')['realtime']?.length ?? 1;
    // The gateway sends each user to the replica its (app, uid) hashes to: pick two on different ones.
    const candidates = ['ann', 'ben', 'cid', 'dot', 'eve', 'fay', 'gus', 'hal'];
    const first = candidates[0]!;
    const second = candidates.find((uid) => userHash(app.appId, uid) % replicas !== userHash(app.appId, first) % replicas) ?? candidates[1]!;
    if (replicas > 1) expect(userHash(app.appId, second) % replicas).not.toBe(userHash(app.appId, first) % replicas);
    await createUsers(app, first, second);
    expect((await app.call('POST', `/v3/users/${first}/friends`, { body: { accepted: [second] } })).status).toBe(200);
    const [one, two] = await Promise.all([connect(app.appId, await authToken(app, first)), connect(app.appId, await authToken(app, second))]);
    await untilTypingReaches(one, two, first, second);
    await two.close();
    await one.next(presence(second, 'offline'), 10_000);
    expect((await app.call('GET', `/v3/users/${second}`)).body.data.status).toBe('offline');
    const back = await connect(app.appId, await authToken(app, second));
    await one.next(presence(second, 'online'));
    expect((await app.call('GET', `/v3/users/${second}`)).body.data.status).toBe('available');
    await Promise.all([one.close(), back.close()]);
  });

  it('a replica killed -9 has its users announced offline by a live one within a few seconds, and REST agrees', async () => {
    const replica = await startRealtimeReplica();
    // A gateway that also routes to the replica this test may kill; users hashing to it land there.
    const suiteReplicas = inject('replicaUrls')['realtime'] ?? [inject('serviceUrls').realtime];
    const gateway = (extraGateway = await startExtraGateway({
      serviceUrls: inject('serviceUrls'),
      redisUrl: inject('redisUrl'),
      managementKey: inject('managementKey'),
      managementSecret: inject('managementSecret'),
      env: { REALTIME_URL: [...suiteReplicas, replica.url].join(',') },
    }));
    try {
      const count = suiteReplicas.length + 1;
      const doomed = Array.from({ length: 64 }, (_, i) => `crash${i}`).find((uid) => userHash(app.appId, uid) % count === count - 1)!;
      await createUsers(app, doomed);
      expect((await app.call('POST', `/v3/users/alice/friends`, { body: { accepted: [doomed] } })).status).toBe(200);
      const alice = await connect(app.appId, tokens['alice']!);
      const victim = await connect(app.appId, await authToken(app, doomed), undefined, gateway.url);
      await alice.next(presence(doomed, 'online'));
      expect((await app.call('GET', `/v3/users/${doomed}`)).body.data.status).toBe('available');

      const killedAt = Date.now();
      await replica.kill();
      expect((await victim.closed).code).not.toBe(1000);
      const offline = await alice.next(presence(doomed, 'offline'), 15_000);
      const tookMs = Date.now() - killedAt;
      expect(tookMs).toBeLessThan(8_000);
      expect(Math.abs(offline.data.lastActiveAt - killedAt / 1_000)).toBeLessThanOrEqual(2);
      expect((await app.call('GET', `/v3/users/${doomed}`)).body.data).toMatchObject({ status: 'offline', lastActiveAt: offline.data.lastActiveAt });
      expect(await alice.receives(presence(doomed, 'offline'), 1_500)).toBe(true);
      expect(alice.frames.filter(presence(doomed, 'offline'))).toHaveLength(1);
      console.info(`a killed replica's user announced offline ${tookMs} ms after the kill`);
      await alice.close();
    } finally {
      await replica.kill();
      await gateway.stop();
      extraGateway = null;
    }
  });
});
