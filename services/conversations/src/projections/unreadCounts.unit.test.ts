import type { EventEnvelope } from '@chat/contracts';
import { fold } from '@chat/eventsourcing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversationMarksDecider } from '../domain/conversationMarks.js';
import type { ConversationMarksCommand, ConversationMarksEvent } from '../domain/conversationMarks.js';
import { ConversationProjector } from './conversationProjector.js';
import { compareEntries } from './listHead.js';
import { MemoryProjectionStore } from './memoryProjectionStore.js';
import { T0, testEnvelope } from './testEvents.js';

/**
 * Random interleavings of sends, read and unread marks, deletions, joins, leaves, kicks and bans
 * across several users, checked against a plain model of what each user should see. Then every
 * event is replayed into a fresh read model in another interleaving of its streams (each stream
 * keeps its order, as Kafka guarantees per key) with duplicates, which must give the same documents.
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

async function project(events: readonly EventEnvelope[]): Promise<MemoryProjectionStore> {
  const store = new MemoryProjectionStore();
  const projector = new ConversationProjector(store);
  for (const event of events) await projector.apply(event);
  return store;
}

const sorted = <T>(map: Map<string, { doc: T; positions: Record<string, number> }>) =>
  [...map.entries()].sort(([x], [y]) => x.localeCompare(y)).map(([id, v]) => ({ id, doc: v.doc, positions: v.positions }));

describe('unread counts (property)', () => {
  it('match the model for every user, and a replay in any stream interleaving gives the same read model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 2 ** 30 }), async (ops, seed) => {
        const { events, expected, membership } = simulate(ops);
        const live = await project(events);
        for (const conversationId of CONVERSATIONS) {
          for (const uid of USERS) {
            const doc = live.users.get(`app1:${uid}:${conversationId}`)?.doc;
            const participant = conversationId === GROUP_CONVERSATION ? membership.has(uid) : uid === 'a' || uid === 'b';
            if (!participant) {
              expect(doc?.listed ?? false).toBe(false);
              continue;
            }
            const want = expected(uid, conversationId);
            if (!doc) {
              expect(want).toEqual({ unreadCount: 0, lastMessageSeq: 0 });
              continue;
            }
            expect({ unreadCount: doc.unreadCount, lastMessageSeq: doc.lastMessageSeq }).toEqual(want);
            expect(doc.unreadCount).toBeGreaterThanOrEqual(0);
          }
        }
        // Each user's list head holds their listed conversations in list order, and their count.
        for (const uid of USERS) {
          const listed = [...live.users.values()].map((v) => v.doc).filter((doc) => doc.owner === uid && doc.listed);
          const head = live.heads.get(`app1:${uid}`)?.doc;
          expect(head?.total ?? 0).toBe(listed.length);
          const order = listed.map((doc) => ({ conversationId: doc.conversationId, updatedAt: doc.updatedAt, lastMessageSeq: doc.lastMessageSeq })).sort(compareEntries);
          expect(head?.entries ?? []).toEqual(order);
        }
        const replayed = await project(reorder(events, seed));
        expect(sorted(replayed.users)).toEqual(sorted(live.users));
        expect(sorted(replayed.shared)).toEqual(sorted(live.shared));
        expect(sorted(replayed.heads)).toEqual(sorted(live.heads));
      }),
      { numRuns: 300 },
    );
    // 300 random histories: about a second alone, many more on a machine busy with other work.
  }, 120_000);
});
