import type { EventEnvelope } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import type { UserConversationDoc } from '../domain/conversationView.js';
import { messageSent as message, pinChanged as pinEvent } from './testEvents.js';
import { userConversationsProjection } from './userConversations.js';

/** The guarded writer's logic over a map: what GuardedProjectionWriter does against MongoDB. */
function applyAll(events: readonly EventEnvelope[], store = new Map<string, { doc: UserConversationDoc; positions: Record<string, number> }>()) {
  for (const event of events) {
    if (!userConversationsProjection.canHandle(event)) continue;
    for (const id of userConversationsProjection.documentIds(event)) {
      const current = store.get(id);
      const source = userConversationsProjection.sourceOf(event, id);
      if ((current?.positions[source] ?? 0) >= event.version) continue;
      const next = userConversationsProjection.evolve(current?.doc ?? null, event, id);
      if (next) store.set(id, { doc: next, positions: { ...current?.positions, [source]: event.version } });
      else store.delete(id);
    }
  }
  return store;
}

const history = [
  message(1, '1', 'a', 'b'),
  pinEvent('ConversationPinned', 1),
  message(2, '2', 'b', 'a'),
  message(3, '3', 'b', 'a'),
  pinEvent('ConversationUnpinned', 2),
  pinEvent('ConversationPinned', 3),
];

describe('user conversations projection', () => {
  it('keeps one view per participant with its own unread count', () => {
    const store = applyAll(history);
    const a = store.get('app1:a:a_user_b')?.doc;
    const b = store.get('app1:b:a_user_b')?.doc;
    expect(a).toMatchObject({ owner: 'a', peer: 'b', unreadCount: 2, pinnedAt: 50, createdAt: 100, updatedAt: 102 });
    expect(b).toMatchObject({ owner: 'b', peer: 'a', unreadCount: 1, createdAt: 100, updatedAt: 102 });
    expect(b).not.toHaveProperty('pinnedAt');
    expect(JSON.parse(a?.lastMessage ?? '{}')).toMatchObject({ id: '3', sender: 'b', data: { text: 'm3' } });
  });

  it('is unchanged by redelivery of every event', () => {
    const once = applyAll(history);
    const twice = applyAll(history, structuredClone(once));
    expect(twice).toEqual(once);
  });

  it('gives the same documents on a replay from scratch, whatever the interleaving of sources', () => {
    const live = applyAll(history);
    const messagesFirst = [...history.filter((e) => e.type === 'MessageSent'), ...history.filter((e) => e.type !== 'MessageSent')];
    const pinsFirst = [...history.filter((e) => e.type !== 'MessageSent'), ...history.filter((e) => e.type === 'MessageSent')];
    expect(applyAll(messagesFirst)).toEqual(live);
    expect(applyAll(pinsFirst)).toEqual(live);
  });
});
