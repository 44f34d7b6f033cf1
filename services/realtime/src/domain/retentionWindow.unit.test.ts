import { topics } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import { RetentionWindow } from './retentionWindow.js';

const send = (id: string) =>
  testEnvelope('MessageSent', 'messages:app1:a_user_b', Number(id), {
    id,
    conversationId: 'a_user_b',
    sender: 'a',
    receiver: 'b',
    receiverType: 'user',
    category: 'message',
    type: 'text',
    data: { text: id },
    sentAt: 1,
  }) as KnownEvent;

function windowOf(maxEvents = 1_000) {
  const window = new RetentionWindow({ retentionMs: 60_000, maxEvents });
  for (const topic of [topics.messages, topics.conversations]) for (const p of [0, 1]) window.begin(topic, p, 0);
  return window;
}

describe('the cursor and the retention window', () => {
  it('a cursor round-trips; anything else is not a cursor', () => {
    expect(decodeCursor(encodeCursor([[1, 2], [3, 4]]))).toEqual([[1, 2], [3, 4]]);
    expect(decodeCursor('not-a-cursor')).toBeNull();
    expect(decodeCursor(Buffer.from('{"v":1,"p":[[1]]}').toString('base64url'))).toBeNull();
  });

  it('replays what came after a cursor, each partition in order, skipped records moving the position', () => {
    const window = windowOf();
    window.record(topics.messages, 0, 0, 10, send('1'));
    window.record(topics.messages, 1, 0, 11, send('2'));
    const cursor = window.vector();
    window.record(topics.messages, 0, 1, 12, null);
    window.record(topics.messages, 0, 2, 13, send('3'));
    window.record(topics.messages, 1, 1, 12, send('4'));
    expect(cursor).toEqual([[1, 1], [0, 0]]);
    expect(window.after(cursor)!.map((e) => (e.event as { data: { id: string } }).data.id)).toEqual(['4', '3']);
    expect(window.vector()).toEqual([[3, 2], [0, 0]]);
    expect(window.after(window.vector())).toEqual([]);
  });

  it('a second copy of an event on the topic (at-least-once delivery) is no new entry, and still moves the position', () => {
    const window = windowOf();
    const first = send('1');
    expect(window.record(topics.messages, 0, 0, 10, first)).not.toBeNull();
    expect(window.record(topics.messages, 0, 1, 11, send('2'))).not.toBeNull();
    expect(window.record(topics.messages, 0, 2, 12, { ...first })).toBeNull();
    expect(window.vector()).toEqual([[3, 0], [0, 0]]);
    expect(window.after([[0, 0], [0, 0]])!.map((e) => e.offset)).toEqual([0, 1]);
    // Once the original has left the window, its id is forgotten with it.
    window.evict(60_000 + 11);
    expect(window.record(topics.messages, 0, 3, 70_000, { ...first })).not.toBeNull();
  });

  it('a cursor older than the window, or of another layout, cannot resume', () => {
    const window = windowOf(2);
    for (let i = 0; i < 4; i++) window.record(topics.messages, 0, i, 100 + i, send(String(i + 1)));
    window.evict(200);
    expect(window.length).toBe(2);
    expect(window.after([[1, 0], [0, 0]])).toBeNull();
    expect(window.after([[2, 0], [0, 0]])!.length).toBe(2);
    expect(window.after([[2, 0, 0], [0, 0]])).toBeNull();
  });

  it('folds messages to their latest state while their send is kept', () => {
    const window = windowOf();
    window.record(topics.messages, 0, 0, 10, send('1'));
    window.record(topics.messages, 0, 1, 11, testEnvelope('MessageEdited', 'messages:app1:a_user_b', 2, { id: '1', conversationId: 'a_user_b', data: { text: 'edited' }, editedAt: 5 }) as KnownEvent);
    expect(window.message('app1', '1')).toMatchObject({ data: JSON.stringify({ text: 'edited' }), editedAt: 5 });
  });
});
