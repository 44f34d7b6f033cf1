import type { AsOf, EventEnvelope } from '@chat/contracts';
import { encodeConsistencyToken, parseAsOf } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { ConversationReadModel } from '../../projections/conversationReadModel.js';
import { memoryConversationStores } from '../../projections/memoryStores.js';
import { T0, messageSent, pinChanged, testEnvelope } from '../../projections/testEvents.js';
import { ConversationAsOf } from './conversationAsOf.js';

const marks = 'conversation-user:app1:a:a_user_b';
const ref = { uid: 'a', conversationId: 'a_user_b', conversationType: 'user' as const, conversationWith: 'b' };
const read = (version: number, messageId: string, atSecond: number) =>
  testEnvelope('ConversationRead', marks, version, { ...ref, messageId, readAt: atSecond }, atSecond * 1000);

// b writes three messages to a (seconds 100–102), a reads up to the second at 150, b edits the first at 160.
const messageStream: EventEnvelope[] = [
  messageSent(1, '10', 'b', 'a'),
  messageSent(2, '11', 'b', 'a'),
  messageSent(3, '12', 'b', 'a'),
  testEnvelope('MessageEdited', 'messages:app1:a_user_b', 4, { id: '10', conversationId: 'a_user_b', data: { text: 'edited' }, editedBy: 'b', editedAt: 160 }, 160_000),
];
const own: EventEnvelope[] = [read(1, '11', 150), { ...pinChanged('ConversationPinned', 1, 170), occurredAt: new Date(170_000).toISOString() }];

function readerOf(events: readonly EventEnvelope[]) {
  const reader = {
    asked: [] as string[],
    async *streamEvents(streamId: string) {
      reader.asked.push(streamId);
      for (const event of events.filter((e) => e.streamId === streamId)) yield await Promise.resolve(event);
    },
  };
  return reader;
}

const timeTravel = (maxEvents = 100) => new ConversationAsOf({ local: readerOf(own), messages: readerOf(messageStream), maxEvents });
const at = (second: number): AsOf => ({ kind: 'time', at: second * 1000 });
const token = (positions: [string, number][]): AsOf => parseAsOf(encodeConsistencyToken(new Map(positions)), 'app1', T0);

describe('a conversation as of a token or a time', () => {
  it('shows the unread count, last message and pin of each state', async () => {
    const view = async (asOf: AsOf) => {
      const { conversation } = await timeTravel().conversation('app1', ref, asOf);
      return conversation && { unread: conversation.unreadCount, last: conversation.lastMessageSeq, pinned: conversation.pinnedAt !== undefined };
    };
    expect(await view(at(99))).toBeNull();
    expect(await view(at(100))).toEqual({ unread: 1, last: 10, pinned: false });
    expect(await view(at(102))).toEqual({ unread: 3, last: 12, pinned: false });
    expect(await view(at(150))).toEqual({ unread: 1, last: 12, pinned: false });
    expect(await view(at(200))).toEqual({ unread: 1, last: 12, pinned: true });
    expect(await view(token([['messages:app1:a_user_b', 2]]))).toEqual({ unread: 2, last: 11, pinned: false });
    // A token of a's read: every other stream as of the time of that read.
    expect(await view(token([[marks, 1]]))).toEqual({ unread: 1, last: 12, pinned: false });
  });

  it('the last state is what the live read model makes of the whole history', async () => {
    const live = new ConversationReadModel(memoryConversationStores().stores);
    await live.apply([...messageStream, ...own]);
    const expected = await live.facts('app1', 'a', 'a_user_b');
    const { conversation } = await timeTravel().conversation('app1', ref, at(1_000));
    expect(conversation).toEqual(expected?.conversation);
  });

  it('asks the messages service only for the conversation’s message stream', async () => {
    const messages = readerOf(messageStream);
    const local = readerOf(own);
    await new ConversationAsOf({ local, messages, maxEvents: 100 }).conversation('app1', ref, at(1_000));
    expect(messages.asked).toEqual(['messages:app1:a_user_b']);
    expect(local.asked).not.toContain('messages:app1:a_user_b');
  });

  it('refuses a token of no write of this conversation, and a longer history than allowed', async () => {
    await expect(timeTravel().conversation('app1', ref, token([['user:app1:a', 1]]))).rejects.toMatchObject({ code: 'ERR_BAD_REQUEST' });
    await expect(timeTravel(3).conversation('app1', ref, at(1_000))).rejects.toMatchObject({ code: 'ERR_HISTORY_TOO_LONG', status: 422 });
  });
});

describe('a long conversation as of a time', () => {
  it('folds hundreds of messages (many sealed chunks) to the live read model’s view', async () => {
    const long = Array.from({ length: 700 }, (_, index) => messageSent(index + 1, String(100 + index), index % 3 === 0 ? 'a' : 'b', index % 3 === 0 ? 'b' : 'a'));
    const live = new ConversationReadModel(memoryConversationStores().stores);
    for (let start = 0; start < long.length; start += 100) await live.apply(long.slice(start, start + 100));
    const expected = await live.facts('app1', 'a', 'a_user_b');
    const asOf = new ConversationAsOf({ local: readerOf([]), messages: readerOf(long), maxEvents: 1_000 });
    const { conversation } = await asOf.conversation('app1', ref, { kind: 'time', at: Date.now() });
    expect(conversation?.unreadCount).toBe(expected?.conversation.unreadCount);
    expect(conversation).toEqual(expected?.conversation);
  });
});
