import { ApiError } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import { globalPinsDecider } from './globalPins.js';
import type { GlobalPinTarget, GlobalPinsEvent } from './globalPins.js';

const spec = specFor(globalPinsDecider);
const user = (uid: string): GlobalPinTarget => ({ conversationType: 'user', conversationWith: uid });
const replaced = (...pins: Array<[string, number]>): GlobalPinsEvent => ({
  type: 'GlobalPinnedConversationsReplaced',
  data: { pinnedConversations: pins.map(([uid, pinnedAt]) => ({ ...user(uid), pinnedAt })) },
});
const refusedWith = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;

describe('app-wide pins decider', () => {
  it('replaces the whole list in the given order', () => {
    spec.given([]).when({ type: 'ReplaceGlobalPins', pins: [user('b'), user('a')], now: 10 }).then([replaced(['b', 10], ['a', 10])]);
  });

  it('keeps the first pin time of a conversation that stays pinned', () => {
    spec
      .given([replaced(['a', 5])])
      .when({ type: 'ReplaceGlobalPins', pins: [user('b'), user('a')], now: 10 })
      .then([replaced(['b', 10], ['a', 5])]);
  });

  it('writes nothing when the list is unchanged', () => {
    spec.given([replaced(['a', 5])]).when({ type: 'ReplaceGlobalPins', pins: [user('a')], now: 10 }).thenNothingHappens();
  });

  it('clears the list', () => {
    spec.given([replaced(['a', 5])]).when({ type: 'ReplaceGlobalPins', pins: [], now: 10 }).then([replaced()]);
  });

  it('refuses more than five and duplicates', () => {
    const six = ['a', 'b', 'c', 'd', 'e', 'f'].map(user);
    spec
      .given([])
      .when({ type: 'ReplaceGlobalPins', pins: six, now: 1 })
      .thenThrows(refusedWith('ERR_SYSTEM_PINNED_CONVERSATIONS_LIMIT_EXCEEDED'));
    spec
      .given([])
      .when({ type: 'ReplaceGlobalPins', pins: [user('a'), user('a')], now: 1 })
      .thenThrows(refusedWith('ERR_BAD_REQUEST'));
  });
});
