import type { EventOf, KnownEvent } from '@chat/contracts';
import { messageView, docOfSent } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { partiesOf, planFrame } from './frames.js';

const sent = (data: Record<string, unknown>, stream = 'messages:app1:alice_user_bob') =>
  testEnvelope('MessageSent', stream, 1, {
    id: '10',
    conversationId: 'alice_user_bob',
    sender: 'alice',
    receiver: 'bob',
    receiverType: 'user',
    category: 'message',
    type: 'text',
    data: { text: 'hi' },
    sentAt: 100,
    ...data,
  }) as KnownEvent;
const members = (uids: string[]) => () => new Set(uids);

describe('frame mapping and who receives each frame', () => {
  it('a one-on-one message reaches its two users, with data exactly the REST resource', () => {
    const event = sent({});
    const plan = planFrame(event, null, members([]))!;
    expect(plan.type).toBe('message');
    expect([...plan.recipients].sort()).toEqual(['alice', 'bob']);
    expect(JSON.parse(plan.dataJson('bob'))).toEqual(messageView(docOfSent('app1', (event as EventOf<'MessageSent'>).data)));
  });

  it('a group message reaches the connected members; an action message also the user it is about', () => {
    const group = { conversationId: 'group_crew', receiver: 'crew', receiverType: 'group' };
    expect([...planFrame(sent(group), null, members(['alice', 'bob']))!.recipients].sort()).toEqual(['alice', 'bob']);
    const kicked = sent({ ...group, category: 'action', type: 'groupMember', data: { action: 'kicked', entities: { on: { entity: { uid: 'carol' }, entityType: 'user' } } } });
    expect([...planFrame(kicked, null, members(['alice']))!.recipients].sort()).toEqual(['alice', 'carol']);
  });

  it('an imported message and an event of another kind make no frame', () => {
    expect(planFrame(sent({ imported: true }), null, members([]))).toBeNull();
    expect(planFrame(testEnvelope('UserCreated', 'user:app1:x', 1, { uid: 'x', name: 'x', role: 'default', createdAt: 1 }) as KnownEvent, null, members([]))).toBeNull();
  });

  it('an edit carries the latest message from the window, or what the event says outside it', () => {
    const edit = testEnvelope('MessageEdited', 'messages:app1:alice_user_bob', 2, { id: '10', conversationId: 'alice_user_bob', data: { text: 'new' }, editedAt: 200, editedBy: 'alice' }) as KnownEvent;
    const known = { ...docOfSent('app1', (sent({}) as EventOf<'MessageSent'>).data), data: JSON.stringify({ text: 'new' }), editedAt: 200 };
    const inWindow = planFrame(edit, known, members([]))!;
    expect(JSON.parse(inWindow.dataJson('bob'))).toMatchObject({ id: '10', sender: 'alice', receiver: 'bob', data: { text: 'new' }, editedAt: 200 });
    const outside = planFrame(edit, null, members([]))!;
    expect([...outside.recipients].sort()).toEqual(['alice', 'bob']);
    expect(JSON.parse(outside.dataJson('bob'))).toEqual({ id: '10', conversationId: 'alice_user_bob', data: { text: 'new' }, editedAt: 200, editedBy: 'alice', updatedAt: 200 });
  });

  it('a read receipt reaches the reader and the peer; a group receipt the reader and the known sender', () => {
    const ref = { uid: 'bob', conversationId: 'alice_user_bob', conversationType: 'user', conversationWith: 'alice', messageId: '10', readAt: 300 };
    const read = planFrame(testEnvelope('ConversationRead', 'conversation-user:app1:bob:alice_user_bob', 1, ref) as KnownEvent, null, members([]))!;
    expect(read.type).toBe('read_receipt');
    expect([...read.recipients].sort()).toEqual(['alice', 'bob']);
    const groupRead = testEnvelope('ConversationRead', 's', 1, { ...ref, conversationId: 'group_crew', conversationType: 'group', conversationWith: 'crew' }) as KnownEvent;
    expect([...planFrame(groupRead, null, members(['carol']))!.recipients]).toEqual(['bob']);
  });

  it('reads a conversation id only when it can be read one way', () => {
    expect(partiesOf('group_crew')).toEqual({ kind: 'group', guid: 'crew' });
    expect(partiesOf('alice_user_bob')).toEqual({ kind: 'user', uids: ['alice', 'bob'] });
    expect(partiesOf('group_x_user_y')).toBeNull();
    expect(partiesOf('a_user_b_user_c')).toBeNull();
  });
});
