import type { EventEnvelope } from '@chat/contracts';
import { fold } from '@chat/eventsourcing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversationMarksDecider } from '../domain/conversationMarks.js';
import type { ConversationMarksCommand, ConversationMarksEvent } from '../domain/conversationMarks.js';
import { ConversationReadModel } from './conversationReadModel.js';
import { T0, testEnvelope } from './testEvents.js';
import { memoryConversationStores } from './memoryStores.js';

/**
 * Random interleavings of sends, read and unread marks, deletions, joins, leaves, kicks and bans
 * across several users, checked against a plain model of what each user should see. Then every
 * event is replayed into a fresh read model in another interleaving of its streams (each stream
 * keeps its order, as Kafka guarantees per key) with duplicates, in batches of other sizes, which
 * must give the same documents. Everything runs through the projection runtime (its real guard) over
 * the in-memory store.
 */
const USERS = ['a', 'b', 'c', 'd'] as const;
const GUID = 'g';
const GROUP_CONVERSATION = `group_${GUID}`;
const DIRECT_CONVERSATION = 'a_user_b';
const CONVERSATIONS = [GROUP_CONVERSATION, DIRECT_CONVERSATION] as const;

type Op =
  | { kind: 'send'; sender: number; group: boolean }
  | { kind: 'read'; user: number; group: boolean }
  | { kind: 'unread'; user: number; group: boolean; pick: number }
  | { kind: 'delete'; pick: number; permanent: boolean }
  | { kind: 'join'; user: number }
  | { kind: 'leave'; user: number; how: 'GroupMemberLeft' | 'GroupMemberKicked' | 'GroupMemberBanned' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('send' as const), sender: fc.nat(3), group: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), user: fc.nat(3), group: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unread' as const), user: fc.nat(3), group: fc.boolean(), pick: fc.nat(50) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(50), permanent: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('join' as const), user: fc.nat(3) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('leave' as const),
      user: fc.nat(3),
      how: fc.constantFrom('GroupMemberLeft' as const, 'GroupMemberKicked' as const, 'GroupMemberBanned' as const),
    }),
  },
);

interface ModelMessage {
  id: number;
  conversationId: string;
  sender: string;
  at: number;
  deleted: boolean;
  removed: boolean;
}

/** The plain model, and the events the platform's services would publish for the same history. */
function simulate(ops: readonly Op[]) {
  const events: EventEnvelope[] = [];
  const versions = new Map<string, number>();
  const next = (stream: string) => {
    const version = (versions.get(stream) ?? 0) + 1;
    versions.set(stream, version);
    return version;
  };
  const marks = new Map<string, ConversationMarksEvent[]>();
  const messages: ModelMessage[] = [];
  const membership = new Map<string, Array<{ from: number; to?: number }>>();
  const banned = new Set<string>();
  const readUpTo = new Map<string, number>();
  let clock = T0;
  let lastId = 0;

  const groupStream = `group:app1:${GUID}`;
  const emitGroup = (type: string, data: Record<string, unknown>) => events.push(testEnvelope(type, groupStream, next(groupStream), { guid: GUID, ...data }, clock));
  const isMember = (uid: string) => membership.get(uid)?.at(-1)?.to === undefined && (membership.get(uid)?.length ?? 0) > 0;
  emitGroup('GroupCreated', { name: 'G', type: 'public', owner: 'a', tags: [], createdAt: Math.floor(clock / 1000) });
  emitGroup('GroupMembersAdded', { members: [{ uid: 'a', scope: 'admin' }], addedAt: Math.floor(clock / 1000) });
  membership.set('a', [{ from: clock }]);

  const latest = (conversationId: string) => Math.max(0, ...messages.filter((m) => m.conversationId === conversationId && !m.removed).map((m) => m.id));
  const runMark = (uid: string, conversationId: string, command: ConversationMarksCommand) => {
    const key = `${uid}:${conversationId}`;
    const history = marks.get(key) ?? [];
    const decided = conversationMarksDecider.decide(command, fold(conversationMarksDecider, history));
    const stream = `conversation-user:app1:${key}`;
    for (const event of decided) {
      history.push(event);
      events.push(testEnvelope(event.type, stream, next(stream), event.data, clock));
      readUpTo.set(key, Number((event.data as { messageId: string }).messageId));
    }
    marks.set(key, history);
  };

  for (const op of ops) {
    clock += 7;
    switch (op.kind) {
      case 'send': {
        const sender = USERS[op.sender]!;
        if (op.group && !isMember(sender)) break;
        if (!op.group && sender !== 'a' && sender !== 'b') break;
        const conversationId = op.group ? GROUP_CONVERSATION : DIRECT_CONVERSATION;
        const receiver = op.group ? GUID : sender === 'a' ? 'b' : 'a';
        lastId += 1;
        messages.push({ id: lastId, conversationId, sender, at: clock, deleted: false, removed: false });
        const stream = `messages:app1:${conversationId}`;
        events.push(
          testEnvelope('MessageSent', stream, next(stream), {
            id: String(lastId), conversationId, sender, receiver, receiverType: op.group ? 'group' : 'user',
            category: 'message', type: 'text', data: { text: `m${lastId}` }, sentAt: Math.floor(clock / 1000),
          }, clock),
        );
        break;
      }
      case 'read':
      case 'unread': {
        const uid = USERS[op.user]!;
        const conversationId = op.group ? GROUP_CONVERSATION : DIRECT_CONVERSATION;
        if (!op.group && uid !== 'a' && uid !== 'b') break;
        if (op.group && !membership.has(uid)) break;
        const ref = { uid, conversationId, conversationType: op.group ? ('group' as const) : ('user' as const), conversationWith: op.group ? GUID : uid === 'a' ? 'b' : 'a' };
        if (op.kind === 'read') {
          const upTo = latest(conversationId);
          if (upTo > 0) runMark(uid, conversationId, { type: 'MarkRead', conversation: ref, messageId: upTo, now: 1 });
        } else {
          const candidates = messages.filter((m) => m.conversationId === conversationId && !m.removed);
          const target = candidates[op.pick % Math.max(1, candidates.length)];
          if (target) runMark(uid, conversationId, { type: 'MarkUnread', conversation: ref, messageId: target.id, now: 1 });
        }
        break;
      }
      case 'delete': {
        const alive = messages.filter((m) => !m.removed && !m.deleted);
        const target = alive[op.pick % Math.max(1, alive.length)];
        if (!target) break;
        if (op.permanent) target.removed = true;
        else target.deleted = true;
        const stream = `messages:app1:${target.conversationId}`;
        events.push(
          testEnvelope('MessageDeleted', stream, next(stream), {
            id: String(target.id), conversationId: target.conversationId, sender: target.sender, permanent: op.permanent, deletedAt: Math.floor(clock / 1000),
          }, clock),
        );
        break;
      }
      case 'join': {
        const uid = USERS[op.user]!;
        if (isMember(uid) || banned.has(uid)) break;
        membership.set(uid, [...(membership.get(uid) ?? []), { from: clock }]);
        emitGroup('GroupMemberJoined', { uid, scope: 'participant', joinedAt: Math.floor(clock / 1000) });
        break;
      }
      case 'leave': {
        const uid = USERS[op.user]!;
        if (!isMember(uid)) break;
        const intervals = membership.get(uid)!;
        intervals[intervals.length - 1] = { from: intervals.at(-1)!.from, to: clock };
        if (op.how === 'GroupMemberBanned') banned.add(uid);
        const at = Math.floor(clock / 1000);
        emitGroup(op.how, { uid, ...(op.how === 'GroupMemberLeft' ? { leftAt: at } : op.how === 'GroupMemberKicked' ? { kickedAt: at } : { bannedAt: at }) });
        break;
      }
    }
  }

  /** What a user should see in a conversation, straight from the model. */
  const expected = (uid: string, conversationId: string) => {
    const intervals = conversationId === GROUP_CONVERSATION ? membership.get(uid) : undefined;
    const sees = (m: ModelMessage) =>
      m.conversationId === conversationId && !m.removed && (intervals === undefined || intervals.some((i) => m.at >= i.from && (i.to === undefined || m.at < i.to)));
    const visible = messages.filter(sees);
    const marker = readUpTo.get(`${uid}:${conversationId}`) ?? 0;
    return {
      unreadCount: visible.filter((m) => !m.deleted && m.sender !== uid && m.id > marker).length,
      lastMessageSeq: Math.max(0, ...visible.map((m) => m.id)),
    };
  };
  return { events, expected, membership };
}

/** Another arrival order: streams interleaved at random (each in its own order), some events twice. */
function reorder(events: readonly EventEnvelope[], seed: number): EventEnvelope[] {
  const byStream = new Map<string, EventEnvelope[]>();
  for (const event of events) byStream.set(event.streamId, [...(byStream.get(event.streamId) ?? []), event]);
  const queues = [...byStream.values()];
  const out: EventEnvelope[] = [];
  let state = seed || 1;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  while (queues.some((q) => q.length > 0)) {
    const live = queues.filter((q) => q.length > 0);
    const queue = live[Math.floor(random() * live.length)]!;
    const event = queue.shift()!;
    out.push(event);
    if (random() < 0.2) out.push(event);
  }
  return out;
}

/** Applies the events in batches of random sizes, as the Kafka consumer would (each stream stays in order). */
async function project(events: readonly EventEnvelope[], chunkSize: number, seed: number) {
  const { stores, memory } = memoryConversationStores();
  const model = new ConversationReadModel(stores, { chunkSize });
  let state = seed || 1;
  for (let start = 0; start < events.length; ) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const size = 1 + (state % 7);
    await model.apply(events.slice(start, start + size));
    start += size;
  }
  return { model, stores: memory };
}

type Projected = Awaited<ReturnType<typeof project>>;

/** Every user's view against the plain model. */
async function expectViewsMatch({ model }: Projected, expected: ReturnType<typeof simulate>['expected'], membership: ReturnType<typeof simulate>['membership']) {
  for (const conversationId of CONVERSATIONS) {
    const timeline = await model.timeline('app1', conversationId);
    for (const uid of USERS) {
      const isGroup = conversationId === GROUP_CONVERSATION;
      const participant = isGroup ? membership.has(uid) : uid === 'a' || uid === 'b';
      const member = await model.member('app1', uid, conversationId);
      if (!participant) {
        // Outsiders of a one-on-one conversation are refused before any view is derived.
        if (isGroup && timeline) expect((await model.view(timeline, member, uid)).listed).toBe(false);
        continue;
      }
      const want = expected(uid, conversationId);
      if (!timeline) {
        expect(want).toEqual({ unreadCount: 0, lastMessageSeq: 0 });
        continue;
      }
      const view = await model.view(timeline, member, uid);
      expect({ unreadCount: view.unreadCount, lastMessageSeq: view.lastMessageSeq }).toEqual(want);
      if (view.lastMessageSeq > 0) expect(JSON.parse(view.lastMessage ?? '{}')).toMatchObject({ id: String(view.lastMessageSeq) });
    }
  }
}

const snapshots = ({ stores }: Projected) =>
  Object.fromEntries(
    Object.entries(stores).map(([name, store]) => [name, [...store.snapshot<object>().entries()].sort(([x], [y]) => x.localeCompare(y))]),
  );

describe('unread counts (property)', () => {
  it('match the model for every user, and a replay in any stream interleaving gives the same read model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 2 ** 30 }), async (ops, seed) => {
        const { events, expected, membership } = simulate(ops);
        // Chunks of three entries: sealing and history reads happen all the time.
        const live = await project(events, 3, seed);
        await expectViewsMatch(live, expected, membership);
        const replayed = await project(reorder(events, seed), 3, seed + 1);
        expect(snapshots(replayed)).toEqual(snapshots(live));
        await expectViewsMatch(replayed, expected, membership);
      }),
      { numRuns: 300 },
    );
    // 300 random histories: about a second alone, many more on a machine busy with other work.
  }, 120_000);

  it('stay exact past a thousand messages (no cap), with marks, deletions and membership far back', async () => {
    const longOps = fc.array(
      fc.oneof(
        { weight: 30, arbitrary: fc.record({ kind: fc.constant('send' as const), sender: fc.nat(3), group: fc.boolean() }) },
        { weight: 1, arbitrary: opArb },
      ),
      { minLength: 2500, maxLength: 3000 },
    );
    await fc.assert(
      fc.asyncProperty(longOps, fc.integer({ min: 1, max: 2 ** 30 }), async (ops, seed) => {
        const { events, expected, membership } = simulate(ops);
        await expectViewsMatch(await project(reorder(events, seed), 64, seed), expected, membership);
      }),
      { numRuns: 4 },
    );
  }, 120_000);
});
