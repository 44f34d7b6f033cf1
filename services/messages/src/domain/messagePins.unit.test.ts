import { ApiError } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import { conversationLogDecider } from './conversationLog.js';
import type { ConversationLogEvent, MessageActor, MessageFacts } from './conversationLog.js';
import { MAX_PINNED_PER_CONVERSATION } from './messagePins.js';
import type { PinMessage, UnpinMessage } from './messagePins.js';

const spec = specFor(conversationLogDecider);
const refusedWith = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;

const target = (id: string, conversationId = 'alice_user_bob', extra: Partial<MessageFacts> = {}): MessageFacts => ({
  id, conversationId, sender: 'alice', category: 'message', deleted: false, reactions: [], ...extra,
});
const bob: MessageActor = { kind: 'user', uid: 'bob', standing: 'participant' };
const outsider: MessageActor = { kind: 'user', uid: 'eve', standing: 'outsider' };
const moderator: MessageActor = { kind: 'user', uid: 'mo', standing: 'moderator' };
const app: MessageActor = { kind: 'app' };
const pin = (id: string, actor: MessageActor, facts: MessageFacts | null = target(id), at = 10): PinMessage => ({
  type: 'PinMessage', target: facts, actor, pin: { id, conversationId: facts?.conversationId ?? 'alice_user_bob', pinnedBy: actor.kind === 'user' ? actor.uid : 'app_system', pinnedAt: at },
});
const unpin = (id: string, actor: MessageActor, facts: MessageFacts | null = target(id)): UnpinMessage => ({
  type: 'UnpinMessage', target: facts, actor, unpin: { id, conversationId: facts?.conversationId ?? 'alice_user_bob', unpinnedBy: 'x', unpinnedAt: 20 },
});
const pinned = (command: PinMessage): ConversationLogEvent => ({ type: 'MessagePinned', data: command.pin });

describe('message pins', () => {
  it('either participant of a one-on-one conversation, and the app, may pin; re-pinning re-stamps', () => {
    spec.given([]).when(pin('5', bob)).then([pinned(pin('5', bob))]);
    spec.given([pinned(pin('5', bob))]).when(pin('5', app, target('5'), 11)).then([pinned(pin('5', app, target('5'), 11))]);
  });

  it('in a group only admins and moderators pin; outsiders never', () => {
    const inGroup = target('7', 'group_club');
    spec.given([]).when(pin('7', moderator, inGroup)).then([pinned(pin('7', moderator, inGroup))]);
    spec.given([]).when(pin('7', { kind: 'user', uid: 'pat', standing: 'participant' }, inGroup)).thenThrows(refusedWith('ERR_PERMISSION_DENIED'));
    spec.given([]).when(pin('5', outsider)).thenThrows(refusedWith('ERR_MESSAGE_NO_ACCESS'));
  });

  it('unknown, deleted and action messages cannot be pinned', () => {
    spec.given([]).when(pin('5', bob, null)).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    spec.given([]).when(pin('5', bob, target('5', 'alice_user_bob', { deleted: true }))).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    spec.given([]).when(pin('5', bob, target('5', 'alice_user_bob', { category: 'action' }))).thenThrows(refusedWith('ERR_MESSAGE_ACTION_NOT_ALLOWED'));
  });

  it(`holds at most ${MAX_PINNED_PER_CONVERSATION} pins; unpinning one makes room; a deletion unpins`, () => {
    const full = Array.from({ length: MAX_PINNED_PER_CONVERSATION }, (_, i) => pinned(pin(String(i + 1), bob)));
    spec.given(full).when(pin('500', bob)).thenThrows(refusedWith('ERR_PINNED_MESSAGES_LIMIT_EXCEEDED'));
    spec.given(full).when(pin('1', bob)).then([pinned(pin('1', bob))]);
    const unpinned: ConversationLogEvent = { type: 'MessageUnpinned', data: unpin('1', bob).unpin };
    spec.given([...full, unpinned]).when(pin('500', bob)).then([pinned(pin('500', bob))]);
    const deleted: ConversationLogEvent = { type: 'MessageDeleted', data: { id: '2', conversationId: 'alice_user_bob', sender: 'alice', permanent: false, deletedAt: 5 } };
    spec.given([...full, deleted]).when(pin('500', bob)).then([pinned(pin('500', bob))]);
  });

  it('unpinning what is not pinned changes nothing', () => {
    spec.given([]).when(unpin('5', bob)).then([]);
    spec.given([pinned(pin('5', bob))]).when(unpin('5', app)).then([{ type: 'MessageUnpinned', data: unpin('5', app).unpin }]);
  });
});
