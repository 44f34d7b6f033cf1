import { ApiError } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import { userPinsDecider } from './userPins.js';
import type { ConversationRef, UserPinsEvent } from './userPins.js';

const spec = specFor(userPinsDecider);
const withUser = (peer: string): ConversationRef => ({
  uid: 'alice',
  conversationId: `alice_user_${peer}`,
  conversationType: 'user',
  conversationWith: peer,
});
const pinned = (peer: string, pinnedAt = 100): UserPinsEvent => ({
  type: 'ConversationPinned',
  data: { ...withUser(peer), pinnedAt },
});
const unpinned = (peer: string): UserPinsEvent => ({ type: 'ConversationUnpinned', data: withUser(peer) });
const refusedWith = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;

describe('user pins decider', () => {
  describe('unpin (seed §3)', () => {
    it('pinned by the user → not pinned', () => {
      spec
        .given([pinned('bob')])
        .when({ type: 'UnpinConversation', conversation: withUser('bob'), globallyPinned: false })
        .then([unpinned('bob')]);
    });

    it('not pinned → not pinned, no event (idempotent)', () => {
      spec.given([]).when({ type: 'UnpinConversation', conversation: withUser('bob'), globallyPinned: false }).thenNothingHappens();
      spec
        .given([pinned('bob'), unpinned('bob')])
        .when({ type: 'UnpinConversation', conversation: withUser('bob'), globallyPinned: false })
        .thenNothingHappens();
    });

    it('pinned globally → refused with ERR_SYSTEM_PINNED_CONVERSATION, also over the user own pin', () => {
      spec
        .given([])
        .when({ type: 'UnpinConversation', conversation: withUser('bob'), globallyPinned: true })
        .thenThrows(refusedWith('ERR_SYSTEM_PINNED_CONVERSATION'));
      spec
        .given([pinned('bob')])
        .when({ type: 'UnpinConversation', conversation: withUser('bob'), globallyPinned: true })
        .thenThrows(refusedWith('ERR_SYSTEM_PINNED_CONVERSATION'));
    });

    it('removes only the addressed pin', () => {
      spec
        .given([pinned('bob'), pinned('carol')])
        .when({ type: 'UnpinConversation', conversation: withUser('carol'), globallyPinned: false })
        .then([unpinned('carol')]);
    });
  });

  describe('pin', () => {
    it('pins with the given time', () => {
      spec
        .given([])
        .when({ type: 'PinConversation', conversation: withUser('bob'), pinnedAt: 1700000000, globallyPinned: false })
        .then([pinned('bob', 1700000000)]);
    });

    it('is idempotent for a conversation already pinned', () => {
      spec
        .given([pinned('bob')])
        .when({ type: 'PinConversation', conversation: withUser('bob'), pinnedAt: 200, globallyPinned: false })
        .thenNothingHappens();
    });

    it('refuses a sixth pin, but not a fifth', () => {
      const four = ['b', 'c', 'd', 'e'].map((p) => pinned(p));
      spec
        .given(four)
        .when({ type: 'PinConversation', conversation: withUser('f'), pinnedAt: 1, globallyPinned: false })
        .then([pinned('f', 1)]);
      spec
        .given([...four, pinned('f')])
        .when({ type: 'PinConversation', conversation: withUser('g'), pinnedAt: 1, globallyPinned: false })
        .thenThrows(refusedWith('ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED'));
      spec
        .given([...four, pinned('f'), unpinned('b')])
        .when({ type: 'PinConversation', conversation: withUser('g'), pinnedAt: 1, globallyPinned: false })
        .then([pinned('g', 1)]);
    });

    it('refuses to pin a conversation the app pinned for everyone', () => {
      spec
        .given([])
        .when({ type: 'PinConversation', conversation: withUser('bob'), pinnedAt: 1, globallyPinned: true })
        .thenThrows(refusedWith('ERR_SYSTEM_PINNED_CONVERSATION'));
    });
  });

  describe('group conversations', () => {
    const group: ConversationRef = { uid: 'alice', conversationId: 'group_team', conversationType: 'group', conversationWith: 'team' };

    it('pins and unpins a group conversation like a user one, within the same limit of five', () => {
      spec
        .given([])
        .when({ type: 'PinConversation', conversation: group, pinnedAt: 7, globallyPinned: false })
        .then([{ type: 'ConversationPinned', data: { ...group, pinnedAt: 7 } }]);
      const five = ['b', 'c', 'd', 'e', 'f'].map((p) => pinned(p));
      spec
        .given(five)
        .when({ type: 'PinConversation', conversation: group, pinnedAt: 7, globallyPinned: false })
        .thenThrows(refusedWith('ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED'));
      spec
        .given([{ type: 'ConversationPinned', data: { ...group, pinnedAt: 7 } }])
        .when({ type: 'UnpinConversation', conversation: group, globallyPinned: false })
        .then([{ type: 'ConversationUnpinned', data: group }]);
    });

    it('refuses a group conversation the app pinned for everyone', () => {
      spec
        .given([])
        .when({ type: 'UnpinConversation', conversation: group, globallyPinned: true })
        .thenThrows(refusedWith('ERR_SYSTEM_PINNED_CONVERSATION'));
    });
  });
});
