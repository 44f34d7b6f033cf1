import type { EventEnvelope } from '@chat/contracts';
import { InMemoryDocumentStore, applyInMemory } from '@chat/mongo';
import type { Projection } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { groupFactsProjection, knownGroupId, membershipId } from './groups.js';
import type { GroupFactDoc } from './groups.js';
import { messageDocId, messagesProjection } from './messages.js';
import type { MessageDoc } from './messages.js';
import { testEnvelope as envelope } from '@chat/eventsourcing/testing';
import { knownUserId, knownUsersProjection } from './users.js';
import type { KnownUserDoc } from './users.js';

/** The documents after the events, through the real runtime (guard and fold) over memory, as one batch. */
async function applyAll<Doc extends object>(projection: Projection<Doc>, events: EventEnvelope[]): Promise<Map<string, Doc>> {
  return (await applyInMemory(projection, events)).snapshot<Doc>();
}

/** The same events one at a time, as a consumer fed single events would apply them. */
async function applyOneByOne<Doc extends object>(projection: Projection<Doc>, events: EventEnvelope[]): Promise<Map<string, Doc>> {
  const store = new InMemoryDocumentStore();
  for (const event of events) await applyInMemory(projection, [event], store);
  return store.snapshot<Doc>();
}

const conversation = 'messages:app1:a_user_b';
const sentEvent = (version: number, id: string, extra: Record<string, unknown> = {}) =>
  envelope('MessageSent', conversation, version, {
    id,
    conversationId: 'a_user_b',
    sender: 'a',
    receiver: 'b',
    receiverType: 'user',
    category: 'message',
    type: 'text',
    data: { text: `see https://x.io ${id}` },
    sentAt: 100 + version,
    ...extra,
  });

describe('messages projection', () => {
  const history = [
    sentEvent(1, '10', { tags: ['t'], mentionedUids: ['c'] }),
    sentEvent(2, '11', { parentId: '10' }),
    envelope('MessageReactionAdded', conversation, 3, { id: '10', conversationId: 'a_user_b', reaction: '👍', uid: 'b', reactedAt: 5 }),
    envelope('MessageEdited', conversation, 4, { id: '10', conversationId: 'a_user_b', data: { text: 'edited' }, tags: ['u'], editedBy: 'a', editedAt: 6 }),
    envelope('MessageDeleted', conversation, 5, { id: '11', conversationId: 'a_user_b', sender: 'a', permanent: false, deletedBy: 'a', deletedAt: 7 }),
  ];

  it('builds the message with its derived fields, reply count, reactions, edit and soft delete', async () => {
    const docs = await applyAll<MessageDoc>(messagesProjection, history);
    const parent = docs.get(messageDocId('app1', '10'));
    expect(parent).toMatchObject({
      seq: 10,
      data: JSON.stringify({ text: 'edited' }),
      tags: ['u'],
      hasMentions: true,
      hasLinks: false,
      replyCount: 1,
      hasReactions: true,
      editedAt: 6,
      editedBy: 'a',
      updatedAt: 6,
      isDeleted: false,
    });
    expect(parent?.reactions.map((r) => [r.reaction, r.uid])).toEqual([['👍', 'b']]);
    expect(docs.get(messageDocId('app1', '11'))).toMatchObject({ isReply: true, parentId: '10', isDeleted: true, deletedAt: 7, deletedBy: 'a' });
  });

  it('one batch gives the same documents as one event at a time', async () => {
    expect(await applyAll<MessageDoc>(messagesProjection, history)).toEqual(await applyOneByOne<MessageDoc>(messagesProjection, history));
  });

  it('redelivering every event (twice, in order or again later) changes nothing', async () => {
    const once = await applyAll<MessageDoc>(messagesProjection, history);
    const twice = await applyAll<MessageDoc>(messagesProjection, [...history, ...history]);
    const interleaved = await applyAll<MessageDoc>(messagesProjection, history.flatMap((e) => [e, e]));
    expect(twice).toEqual(once);
    expect(interleaved).toEqual(once);
  });

  it('a permanent delete removes the message; reactions after it are ignored', async () => {
    const docs = await applyAll<MessageDoc>(messagesProjection, [
      sentEvent(1, '10'),
      envelope('MessageDeleted', conversation, 2, { id: '10', conversationId: 'a_user_b', sender: 'a', permanent: true, deletedAt: 7 }),
      envelope('MessageReactionAdded', conversation, 3, { id: '10', conversationId: 'a_user_b', reaction: 'x', uid: 'b', reactedAt: 8 }),
    ]);
    expect(docs.size).toBe(0);
  });
});

describe('known users projection', () => {
  const userStream = 'user:app1:u1';
  const created = envelope('UserCreated', userStream, 1, { uid: 'u1', name: 'U', role: 'default', tags: [], createdAt: 1 });
  const updated = envelope('UserUpdated', userStream, 2, { uid: 'u1', changes: { name: 'New', avatar: 'a.png' }, removed: [], updatedAt: 2 });
  const deactivated = envelope('UserDeactivated', userStream, 3, { uid: 'u1', deactivatedAt: 3 });
  const blocked = envelope('UsersBlocked', 'blocks:app1:u1', 1, { uid: 'u1', blockedUids: ['u2', 'u3'], blockedAt: 4 });
  const unblocked = envelope('UsersUnblocked', 'blocks:app1:u1', 2, { uid: 'u1', unblockedUids: ['u2'], unblockedAt: 5 });

  it('follows profile changes, deactivation and blocks kept on their own stream position', async () => {
    const docs = await applyAll<KnownUserDoc>(knownUsersProjection, [created, updated, blocked, deactivated, unblocked]);
    expect(docs.get(knownUserId('app1', 'u1'))).toMatchObject({ name: 'New', avatar: 'a.png', deactivated: true, deleted: false, blocked: ['u3'] });
  });

  it('keeps the profile tags, through the shared UserUpdated applier', async () => {
    const tagged = envelope('UserUpdated', userStream, 2, { uid: 'u1', changes: { tags: ['vip'] }, removed: [], updatedAt: 2 });
    const docs = await applyAll<KnownUserDoc>(knownUsersProjection, [created, tagged]);
    expect(docs.get(knownUserId('app1', 'u1'))?.tags).toEqual(['vip']);
  });

  it('redelivery changes nothing; a deleted user stays deleted when its creation is redelivered', async () => {
    const events = [created, updated, blocked, unblocked];
    expect(await applyAll(knownUsersProjection, [...events, ...events])).toEqual(await applyAll(knownUsersProjection, events));
    const deleted = envelope('UserDeleted', userStream, 3, { uid: 'u1', permanent: false, deletedAt: 9 });
    const docs = await applyAll<KnownUserDoc>(knownUsersProjection, [created, updated, deleted, created]);
    expect(docs.get(knownUserId('app1', 'u1'))?.deleted).toBe(true);
  });
});

describe('group facts projection', () => {
  const stream = 'group:app1:g';
  const events = [
    envelope('GroupCreated', stream, 1, { guid: 'g', name: 'G', type: 'public', owner: 'o', tags: [], createdAt: 1 }),
    envelope('GroupMembersAdded', stream, 2, { guid: 'g', members: [{ uid: 'o', scope: 'admin' }, { uid: 'a', scope: 'participant' }], addedAt: 2 }),
    envelope('GroupMemberJoined', stream, 3, { guid: 'g', uid: 'b', scope: 'participant', joinedAt: 3 }),
    envelope('GroupMemberScopeChanged', stream, 4, { guid: 'g', uid: 'b', scope: 'moderator', previousScope: 'participant', changedAt: 4 }),
    envelope('GroupMemberBanned', stream, 5, { guid: 'g', uid: 'a', bannedAt: 5 }),
    envelope('GroupUpdated', stream, 6, { guid: 'g', changes: { name: 'G2' }, removed: [], updatedBy: 'o', updatedAt: 6 }),
  ];

  it('tracks the group, its member count and each member’s standing and scope', async () => {
    const docs = await applyAll<GroupFactDoc>(groupFactsProjection, events);
    expect(docs.get(knownGroupId('app1', 'g'))).toMatchObject({ name: 'G2', membersCount: 2, updatedBy: 'o', deleted: false });
    expect(docs.get(membershipId('app1', 'g', 'a'))).toMatchObject({ standing: 'banned' });
    expect(docs.get(membershipId('app1', 'g', 'b'))).toMatchObject({ standing: 'member', scope: 'moderator' });
  });

  it('redelivery changes nothing (member counts included)', async () => {
    expect(await applyAll(groupFactsProjection, [...events, ...events])).toEqual(await applyAll(groupFactsProjection, events));
    expect(await applyAll(groupFactsProjection, events.flatMap((e) => [e, e]))).toEqual(await applyAll(groupFactsProjection, events));
  });
});
