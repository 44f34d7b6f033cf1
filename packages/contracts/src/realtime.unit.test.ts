import { describe, expect, it } from 'vitest';
import {
  REALTIME_CLOSE_TOKEN_REVOKED,
  REALTIME_CLOSE_TOO_SLOW,
  clientFrameSchema,
  cursorFrameTypes,
  parseServerFrame,
  realtimeQuerySchema,
  serverFrameSchema,
  serverFrameTypes,
} from './realtime.js';
import { cursorCovers, decodeRealtimeCursor, encodeRealtimeCursor } from './realtimeCursor.js';

const cursor = encodeRealtimeCursor([[4, 0, 9], [2, 2]]);
const message = {
  id: '17',
  conversationId: 'alice_user_bob',
  sender: 'alice',
  receiverType: 'user',
  receiver: 'bob',
  category: 'message',
  type: 'text',
  data: { text: 'hi', entities: {} },
  sentAt: 1_764_400_000,
  updatedAt: 1_764_400_000,
};
const typing = { sender: 'alice', receiver: 'bob', receiverType: 'user' };

const valid: Record<string, unknown> = {
  message: { type: 'message', cursor, data: { ...message, muid: 'm-1', extraRestField: true } },
  message_edited: { type: 'message_edited', cursor, data: { id: '17', conversationId: 'alice_user_bob', data: { text: 'hi!' }, editedAt: 1 } },
  message_deleted: { type: 'message_deleted', cursor, data: { id: '17', conversationId: 'alice_user_bob', deletedAt: 2, permanent: false } },
  reaction_added: { type: 'reaction_added', cursor, data: { messageId: '17', conversationId: 'alice_user_bob', reaction: '👍', uid: 'bob', reactedAt: 3 } },
  reaction_removed: { type: 'reaction_removed', cursor, data: { messageId: '17', conversationId: 'alice_user_bob', reaction: '👍', uid: 'bob', removedAt: 4 } },
  read_receipt: { type: 'read_receipt', cursor, data: { conversationId: 'alice_user_bob', messageId: '17', uid: 'bob', readAt: 5 } },
  delivery_receipt: { type: 'delivery_receipt', cursor, data: { conversationId: 'alice_user_bob', messageId: '17', uid: 'bob', deliveredAt: 5 } },
  typing_started: { type: 'typing_started', data: typing },
  typing_ended: { type: 'typing_ended', data: { ...typing, receiver: 'team', receiverType: 'group' } },
  presence: { type: 'presence', data: { uid: 'bob', status: 'online', lastActiveAt: 6 } },
  resync_required: { type: 'resync_required', cursor, data: { reason: 'cursor_expired' } },
  error: { type: 'error', data: { code: 'ERR_BAD_FRAME', message: 'A client frame is JSON with a known "type".' } },
  pong: { type: 'pong' },
};

describe('realtime server frames', () => {
  it.each(Object.entries(valid))('accepts a %s frame', (type, frame) => {
    const parsed = serverFrameSchema.parse(frame);
    expect(parsed.type).toBe(type);
    expect(parseServerFrame(JSON.stringify(frame))?.type).toBe(type);
  });

  it('has an example of every frame type, and only the ephemeral ones lack a cursor', () => {
    expect(Object.keys(valid).sort()).toEqual([...serverFrameTypes].sort());
    expect([...cursorFrameTypes].sort()).toEqual(['delivery_receipt', 'message', 'message_deleted', 'message_edited', 'reaction_added', 'reaction_removed', 'read_receipt']);
  });

  it('takes resync_required bare, or with the cursor the live frames start from', () => {
    expect(serverFrameSchema.parse({ type: 'resync_required' })).toEqual({ type: 'resync_required' });
    expect(serverFrameSchema.safeParse({ type: 'resync_required', cursor: 'not a cursor' }).success).toBe(false);
  });

  it('takes a reaction with the message it changed', () => {
    const frame = { type: 'reaction_added', cursor, data: { messageId: '17', conversationId: 'c', reaction: 'x', uid: 'bob', reactedAt: 1, message } };
    expect(serverFrameSchema.safeParse(frame).success).toBe(true);
    expect(serverFrameSchema.safeParse({ ...frame, data: { ...frame.data, message: { id: '17' } } }).success).toBe(false);
  });

  it.each([
    ['a message without a cursor', { type: 'message', data: message }],
    ['a message without sentAt', { type: 'message', cursor, data: { ...message, sentAt: undefined } }],
    ['a message with an unknown receiverType', { type: 'message', cursor, data: { ...message, receiverType: 'channel' } }],
    ['a cursor that is not base64url', { type: 'read_receipt', cursor: 'a b', data: { conversationId: 'c', messageId: '1', uid: 'u', readAt: 1 } }],
    ['a read receipt without the reader', { type: 'read_receipt', cursor, data: { conversationId: 'c', messageId: '1', readAt: 1 } }],
    ['presence with an unknown status', { type: 'presence', data: { uid: 'bob', status: 'away', lastActiveAt: 1 } }],
    ['typing without a receiverType', { type: 'typing_started', data: { sender: 'a', receiver: 'b' } }],
    ['an unknown type', { type: 'hello', data: {} }],
  ])('refuses %s', (_name, frame) => {
    expect(serverFrameSchema.safeParse(frame).success).toBe(false);
    expect(parseServerFrame(JSON.stringify(frame))).toBeUndefined();
  });

  it('reads text that is not JSON as no frame', () => {
    expect(parseServerFrame('{"type":')).toBeUndefined();
  });

  it('names the close codes', () => {
    expect([REALTIME_CLOSE_TOKEN_REVOKED, REALTIME_CLOSE_TOO_SLOW]).toEqual([4401, 4008]);
  });
});

describe('realtime client frames and query', () => {
  it('accepts typing to a user or a group, and ping', () => {
    expect(clientFrameSchema.parse({ type: 'typing_started', receiver: 'bob', receiverType: 'user' }).type).toBe('typing_started');
    expect(clientFrameSchema.parse({ type: 'typing_ended', receiver: 'team', receiverType: 'group' }).type).toBe('typing_ended');
    expect(clientFrameSchema.parse({ type: 'ping' })).toEqual({ type: 'ping' });
  });

  it.each([
    ['typing without a receiver', { type: 'typing_started', receiverType: 'user' }],
    ['typing with an empty receiver', { type: 'typing_ended', receiver: '', receiverType: 'user' }],
    ['a frame only the server sends', { type: 'pong' }],
  ])('refuses %s', (_name, frame) => {
    expect(clientFrameSchema.safeParse(frame).success).toBe(false);
  });

  it('needs a token, and takes an app id and a cursor', () => {
    expect(realtimeQuerySchema.parse({ appId: 'app1', authToken: 't', since: cursor })).toEqual({ appId: 'app1', authToken: 't', since: cursor });
    expect(realtimeQuerySchema.safeParse({ appId: 'app1' }).success).toBe(false);
    expect(realtimeQuerySchema.safeParse({ authToken: 't', appId: 'App 1' }).success).toBe(false);
    expect(realtimeQuerySchema.safeParse({ authToken: 't', since: 'not/base64url' }).success).toBe(false);
  });
});

describe('realtime cursors', () => {
  it('round-trip through their opaque encoding', () => {
    const vector = [[0, 12_345_678_901], [7]];
    const encoded = encodeRealtimeCursor(vector);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeRealtimeCursor(encoded)).toEqual(vector);
  });

  it('read anything else as unknown', () => {
    expect(decodeRealtimeCursor('bm90LWpzb24')).toBeUndefined(); // "not-json"
    expect(decodeRealtimeCursor(btoa(JSON.stringify({ v: 2, p: [] })).replace(/=+$/, ''))).toBeUndefined();
    expect(decodeRealtimeCursor(btoa(JSON.stringify({ v: 1, p: [[-1]] })).replace(/=+$/, ''))).toBeUndefined();
    expect(decodeRealtimeCursor('***')).toBeUndefined();
  });

  it('order component-wise: a cursor covers one no partition of which is ahead', () => {
    const seen = [[5, 3], [2]];
    expect(cursorCovers(seen, [[5, 3], [2]])).toBe(true);
    expect(cursorCovers(seen, [[4, 3], [1]])).toBe(true);
    expect(cursorCovers(seen, [[5, 4], [2]])).toBe(false);
    expect(cursorCovers(seen, [[5, 3], [3]])).toBe(false);
    // Another partition count or topic set is not comparable: never claimed covered.
    expect(cursorCovers(seen, [[1, 1, 1], [1]])).toBe(false);
    expect(cursorCovers(seen, [[1, 1]])).toBe(false);
  });
});
