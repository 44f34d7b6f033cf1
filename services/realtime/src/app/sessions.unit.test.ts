import { topics } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BlockIndex } from '../domain/blockIndex.js';
import { MembershipIndex } from '../domain/membershipIndex.js';
import { RetentionWindow } from '../domain/retentionWindow.js';
import { RecentRevocations } from '../domain/revocations.js';
import { Connection, ConnectionRegistry, closeCodes } from './connections.js';
import type { ClientChannel } from './connections.js';
import { Fanout } from './fanout.js';
import { Sessions } from './sessions.js';

const text = (id: string, receiver = 'bob', receiverType: 'user' | 'group' = 'user') =>
  testEnvelope('MessageSent', `messages:app1:${receiver}`, Number(id), {
    id,
    conversationId: receiverType === 'group' ? `group_${receiver}` : `alice_user_${receiver}`,
    sender: 'alice',
    receiver,
    receiverType,
    category: 'message',
    type: 'text',
    data: { text: id },
    sentAt: 1,
  }) as KnownEvent;

class FakeChannel implements ClientChannel {
  frames: Array<{ type: string; text: string }> = [];
  closedWith: number | null = null;
  buffered = 0;
  perFrame = 0;
  send(text: string, type: string) {
    this.frames.push({ type, text });
    this.buffered += this.perFrame;
  }
  bufferedBytes() {
    return this.buffered;
  }
  close(code: number) {
    this.closedWith = code;
  }
  texts() {
    return this.frames.filter((f) => f.type === 'message').map((f) => (JSON.parse(f.text) as { data: { data: { text: string } } }).data.data.text);
  }
  cursors() {
    return this.frames.filter((f) => f.type === 'message').map((f) => (JSON.parse(f.text) as { cursor: string }).cursor);
  }
}

function setUp(groups: Record<string, string[]> = {}) {
  const window = new RetentionWindow({ retentionMs: 60_000, maxEvents: 1_000 });
  const index = new MembershipIndex();
  const registry = new ConnectionRegistry();
  const revocations = new RecentRevocations(10_000);
  const blocks = new BlockIndex(10_000);
  const now = () => 1_000;
  const fanout = new Fanout({ window, index, registry, revocations, blocks, now });
  fanout.onStart([topics.messages, topics.conversations, topics.users].flatMap((topic) => [0, 1].map((partition) => ({ topic, partition, offset: 0 }))));
  let release: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  const sessions = new Sessions({
    window,
    index,
    registry,
    revocations,
    fanout,
    groupsOf: async (_appId, uid) => {
      await gate;
      return groups[uid] ?? [];
    },
    blocks,
    blocksOf: () => Promise.resolve({ blocked: [], blockedBy: [] }),
    now,
    logger: pino({ level: 'silent' }),
  });
  const offsets = [0, 0];
  let clock = 10;
  const feed = (partition: number, ...events: KnownEvent[]) =>
    fanout.onBatch(topics.messages, partition, events.map((event) => ({ offset: offsets[partition]!++, timestamp: clock++, event })));
  return {
    window,
    index,
    sessions,
    feed,
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
    connect(uid: string, channel = new FakeChannel(), maxBuffered = 1_000_000) {
      return { channel, connection: new Connection('app1', uid, `t-${uid}`, channel, maxBuffered) };
    },
  };
}

describe('sessions: who receives, resume from the window, the bounded buffer', () => {
  it('a live connection gets its own frames only; another app\'s user of the same uid none', async () => {
    const t = setUp();
    const bob = t.connect('bob');
    const carol = t.connect('carol');
    await t.sessions.open(bob.connection, undefined);
    await t.sessions.open(carol.connection, undefined);
    t.feed(0, text('1'), text('2', 'carol'));
    expect(bob.channel.texts()).toEqual(['1']);
    expect(carol.channel.texts()).toEqual(['2']);
  });

  it('group frames reach members only, and a join seen in the window before the load counts', async () => {
    const t = setUp({ bob: ['crew'] });
    const bob = t.connect('bob');
    const carol = t.connect('carol');
    t.feed(1, testEnvelope('GroupMemberJoined', 'group:app1:crew', 2, { guid: 'crew', uid: 'carol', scope: 'participant', joinedAt: 1 }) as KnownEvent);
    await t.sessions.open(bob.connection, undefined);
    await t.sessions.open(carol.connection, undefined);
    t.feed(0, text('1', 'crew', 'group'), text('2', 'other', 'group'));
    expect(bob.channel.texts()).toEqual(['1']);
    expect(carol.channel.texts()).toEqual(['1']);
  });

  // ADR 0100: a replica nobody is connected to plans no frame (audience, JSON) for what it reads.
  it('plans no frame while nobody is connected here, and a connection gets the next ones', async () => {
    const t = setUp({ bob: ['crew'] });
    let audiences = 0;
    const membersOf = t.index.membersOf.bind(t.index);
    t.index.membersOf = (appId, guid) => {
      audiences++;
      return membersOf(appId, guid);
    };
    t.feed(0, text('1', 'crew', 'group'), text('2', 'crew', 'group'));
    expect(audiences).toBe(0);
    expect(t.window.length).toBe(2);
    const bob = t.connect('bob');
    await t.sessions.open(bob.connection, undefined);
    t.feed(0, text('3', 'crew', 'group'));
    expect(audiences).toBe(1);
    expect(bob.channel.texts()).toEqual(['3']);
  });

  it('resumes after a cursor: the missed frames once, in order, then live, with no gap while the groups load', async () => {
    const t = setUp();
    const first = t.connect('bob');
    await t.sessions.open(first.connection, undefined);
    t.feed(0, text('1'));
    const cursor = (JSON.parse(first.channel.frames[0]!.text) as { cursor: string }).cursor;
    t.sessions.closed(first.connection);
    t.feed(0, text('2'));
    t.feed(1, text('3'));
    const again = t.connect('bob');
    t.hold();
    const opening = t.sessions.open(again.connection, cursor);
    t.feed(0, text('4')); // read while the groups load: replayed, not sent live
    t.release();
    await opening;
    t.feed(1, text('5'));
    expect(again.channel.texts()).toEqual(['2', '3', '4', '5']);
    expect(new Set(again.channel.cursors()).size).toBe(4);
  });

  it('a cursor that is not ours or is past the window gets resync_required, then live', async () => {
    const t = setUp();
    const bob = t.connect('bob');
    await t.sessions.open(bob.connection, 'garbage');
    t.feed(0, text('1'));
    expect(bob.channel.frames.map((f) => f.type)).toEqual(['resync_required', 'message']);
  });

  it('a cursor from a replica that read further delivers nothing twice', async () => {
    const t = setUp();
    const bob = t.connect('bob');
    const cursorFromAhead = Buffer.from(JSON.stringify({ v: 1, p: [[2, 0], [0, 0]] })).toString('base64url');
    await t.sessions.open(bob.connection, cursorFromAhead);
    t.feed(0, text('1'), text('2'), text('3'));
    expect(bob.channel.texts()).toEqual(['3']);
  });

  it('a client past its buffer bound is closed with 4008 and gets nothing more', async () => {
    const t = setUp();
    const slow = t.connect('bob', Object.assign(new FakeChannel(), { perFrame: 600 }), 1_000);
    await t.sessions.open(slow.connection, undefined);
    t.feed(0, text('1'), text('2'), text('3'));
    expect(slow.channel.closedWith).toBe(closeCodes.slowClient);
    expect(slow.channel.texts()).toEqual(['1', '2']);
  });

  it('a revoked token\'s connection is closed with 4401, and it cannot open again', async () => {
    const t = setUp();
    const bob = t.connect('bob');
    await t.sessions.open(bob.connection, undefined);
    const revoked = testEnvelope('AuthTokensRevoked', 'user:app1:bob', 3, { uid: 'bob', tokenIds: ['t-bob'], reason: 'deleted', revokedAt: 1 }) as KnownEvent;
    const fanout = (t.sessions as unknown as { deps: { fanout: Fanout } }).deps.fanout;
    fanout.onBatch(topics.users, 0, [{ offset: 0, timestamp: 1_000, event: revoked }]);
    expect(bob.channel.closedWith).toBe(closeCodes.unauthorized);
    expect(t.sessions.admits('app1', 'bob', 't-bob')).toBe(false);
    expect(t.sessions.admits('app1', 'bob', 't-other')).toBe(true);
  });
});
