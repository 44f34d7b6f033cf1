import { ApiError } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import type { MessageActor, MessageFacts } from '../conversationLog.js';
import { messageInteractionDecider, MAX_INTERACTED_ELEMENTS } from './messageInteractions.js';
import type { MarkInteracted, MessageInteractionEvent } from './messageInteractions.js';
import { MAX_SAVED_PER_USER, savedMessagesDecider } from './savedMessages.js';
import type { SaveMessage, SavedMessagesEvent, UnsaveMessage } from './savedMessages.js';
import { threadSubscriptionDecider } from './threadSubscriptions.js';
import type { ChangeThreadSubscription } from './threadSubscriptions.js';

const refusedWith = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;
const message = (id: string, extra: Partial<MessageFacts> = {}): MessageFacts => ({
  id, conversationId: 'alice_user_bob', sender: 'alice', category: 'message', deleted: false, reactions: [], ...extra,
});
const bob: MessageActor = { kind: 'user', uid: 'bob', standing: 'participant' };
const eve: MessageActor = { kind: 'user', uid: 'eve', standing: 'outsider' };

describe('saved messages', () => {
  const spec = specFor(savedMessagesDecider);
  const save = (id: string, target: MessageFacts | null = message(id), actor = bob, at = 10): SaveMessage => ({
    type: 'SaveMessage', target, actor, save: { uid: 'bob', id, conversationId: 'alice_user_bob', savedAt: at },
  });
  const unsave = (id: string, target: MessageFacts | null = message(id), actor = bob): UnsaveMessage => ({
    type: 'UnsaveMessage', target, actor, unsave: { uid: 'bob', id, conversationId: 'alice_user_bob', unsavedAt: 20 },
  });
  const saved = (id: string, at = 10): SavedMessagesEvent => ({ type: 'MessageSaved', data: save(id, message(id), bob, at).save });
  const unsaved = (id: string): SavedMessagesEvent => ({ type: 'MessageUnsaved', data: unsave(id).unsave });

  it('a participant saves a message; saving it again re-stamps it', () => {
    spec.given([]).when(save('5')).then([saved('5')]);
    spec.given([saved('5')]).when(save('5', message('5'), bob, 11)).then([saved('5', 11)]);
  });

  it('refuses unknown, deleted and invisible messages', () => {
    spec.given([]).when(save('5', null)).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    spec.given([]).when(save('5', message('5', { deleted: true }))).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    spec.given([]).when(save('5', message('5'), eve)).thenThrows(refusedWith('ERR_MESSAGE_NO_ACCESS'));
  });

  it(`holds at most ${MAX_SAVED_PER_USER}: a new save past it is refused, a re-save and a save after an unsave are not`, () => {
    const full = Array.from({ length: MAX_SAVED_PER_USER }, (_, i) => saved(String(i + 1)));
    spec.given(full).when(save('1000')).thenThrows(refusedWith('ERR_SAVED_MESSAGES_LIMIT_EXCEEDED'));
    spec.given(full).when(save('1')).then([saved('1')]);
    spec.given([...full, unsaved('7')]).when(save('1000')).then([saved('1000')]);
  });

  it('unsaves a saved message even once it is gone; unsaving one not saved changes nothing', () => {
    spec.given([saved('5')]).when(unsave('5')).then([unsaved('5')]);
    spec.given([saved('5')]).when(unsave('5', null)).then([unsaved('5')]);
    spec.given([saved('5'), unsaved('5')]).when(unsave('5')).thenNothingHappens();
    spec.given([]).when(unsave('5', null)).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    spec.given([]).when(unsave('5', message('5'), eve)).thenThrows(refusedWith('ERR_MESSAGE_NO_ACCESS'));
  });
});

describe('thread subscriptions', () => {
  const spec = specFor(threadSubscriptionDecider);
  const change = (type: ChangeThreadSubscription['type'], target: MessageFacts | null = message('5'), actor = bob): ChangeThreadSubscription => ({
    type, target, actor, change: { uid: 'bob', parentId: '5', conversationId: 'alice_user_bob', at: 10 },
  });

  it('records every wish, repeats too (a reply in between may have subscribed the user again)', () => {
    const subscribe = change('SubscribeThread');
    spec.given([]).when(subscribe).then([{ type: 'ThreadSubscribed', data: subscribe.change }]);
    spec.given([{ type: 'ThreadSubscribed', data: subscribe.change }]).when(subscribe).then([{ type: 'ThreadSubscribed', data: subscribe.change }]);
    const unsubscribe = change('UnsubscribeThread');
    spec.given([{ type: 'ThreadUnsubscribed', data: unsubscribe.change }]).when(unsubscribe).then([{ type: 'ThreadUnsubscribed', data: unsubscribe.change }]);
  });

  it('a thread is a live, visible, top-level message; a deleted one may still be left', () => {
    spec.given([]).when(change('SubscribeThread', null)).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    spec.given([]).when(change('SubscribeThread', message('5', { deleted: true }))).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    spec.given([]).when(change('SubscribeThread', message('5'), eve)).thenThrows(refusedWith('ERR_MESSAGE_NO_ACCESS'));
    spec.given([]).when(change('SubscribeThread', message('6', { parentId: '5' }))).thenThrows(refusedWith('ERR_MESSAGE_THREAD_NESTING'));
    spec.given([]).when(change('SubscribeThread', message('5', { category: 'action' }))).thenThrows(refusedWith('ERR_MESSAGE_ACTION_NOT_ALLOWED'));
    const leave = change('UnsubscribeThread', message('5', { deleted: true }));
    spec.given([]).when(leave).then([{ type: 'ThreadUnsubscribed', data: leave.change }]);
  });
});

describe('message interactions', () => {
  const spec = specFor(messageInteractionDecider);
  const mark = (elementIds: string[], target: MessageFacts | null = message('5'), actor = bob): MarkInteracted => ({
    type: 'MarkInteracted', target, actor, interaction: { uid: 'bob', id: '5', conversationId: 'alice_user_bob', elementIds, interactedAt: 10 },
  });
  const marked = (elementIds: string[]): MessageInteractionEvent => ({ type: 'MessageInteracted', data: mark(elementIds).interaction });

  it('records only elements not marked before, once each; marking them again changes nothing', () => {
    spec.given([]).when(mark(['ok', 'ok', 'cancel'])).then([marked(['ok', 'cancel'])]);
    spec.given([marked(['ok'])]).when(mark(['ok', 'later'])).then([marked(['later'])]);
    spec.given([marked(['ok', 'later'])]).when(mark(['later', 'ok'])).thenNothingHappens();
  });

  it('refuses unknown, deleted, invisible and action messages, and more elements than the cap', () => {
    spec.given([]).when(mark(['ok'], null)).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    spec.given([]).when(mark(['ok'], message('5', { deleted: true }))).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    spec.given([]).when(mark(['ok'], message('5'), eve)).thenThrows(refusedWith('ERR_MESSAGE_NO_ACCESS'));
    spec.given([]).when(mark(['ok'], message('5', { category: 'action' }))).thenThrows(refusedWith('ERR_MESSAGE_ACTION_NOT_ALLOWED'));
    const many = Array.from({ length: MAX_INTERACTED_ELEMENTS }, (_, i) => `e${i}`);
    spec.given([marked(many)]).when(mark(['one-more'])).thenThrows(refusedWith('ERR_BAD_REQUEST'));
  });
});
