import { ApiError } from '@chat/contracts';
import type { MessageSent } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing';
import { describe, it } from 'vitest';
import { conversationLogDecider } from './conversationLog.js';
import type { ConversationLogEvent } from './conversationLog.js';

const spec = specFor(conversationLogDecider);
const refusedWith = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;
const message = (id: string): MessageSent => ({
  id,
  conversationId: 'alice_user_bob',
  sender: 'alice',
  receiver: 'bob',
  receiverType: 'user',
  category: 'message',
  type: 'text',
  data: { text: 'x' },
  sentAt: 10,
});
const match = { ruleId: 'r', ruleName: 'R', revisionId: 'a_r_1', condition: { id: 1, entity: 'message', operand: 'text' as const, operator: 'contains' as const, category: 'word' as const, isKeywordsReferencePresent: false, isMediaPresent: false, value: ['x'] }, action: ['blockMessage' as const], matched: ['x'] };
const blocked: ConversationLogEvent = { type: 'MessageBlocked', data: { message: message('7'), match, blockedAt: 10 } };
const user = (uid: string) => ({ uid, active: true, blocked: [] });
const review = (status: 'approved' | 'disapproved' | 'rejected', queue: 'flagged' | 'blocked', extra = {}) => ({ id: '7', conversationId: 'alice_user_bob', queue, status, reviewedBy: 'app_system', reviewedAt: 20, ...extra });

describe('moderation on the conversation stream', () => {
  it('a blocking verdict stores the message as blocked (it keeps its id), a flagging one sends and flags it', () => {
    spec
      .given([])
      .when({ type: 'SendMessage', message: message('7'), sender: user('alice'), receiver: { kind: 'user', user: user('bob') }, moderation: { block: match, flags: [] } })
      .then([blocked]);
    spec
      .given([blocked])
      .when({ type: 'SendMessage', message: message('7'), sender: user('alice'), receiver: { kind: 'user', user: user('bob') } })
      .thenThrows((error) => error instanceof Error && error.name === 'StaleMessageIdError');
    spec
      .given([])
      .when({ type: 'SendMessage', message: message('8'), sender: user('alice'), receiver: { kind: 'user', user: user('bob') }, moderation: { block: null, flags: [match] } })
      .then([
        { type: 'MessageSent', data: message('8') },
        { type: 'MessageFlagged', data: { id: '8', conversationId: 'alice_user_bob', flaggedBy: 'moderation', match, flaggedAt: 10 } },
      ]);
  });

  it('a refused send is refused before moderation: a blocked receiver is not a message to review', () => {
    spec
      .given([])
      .when({ type: 'SendMessage', message: message('7'), sender: user('alice'), receiver: { kind: 'user', user: null }, moderation: { block: match, flags: [] } })
      .thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
  });

  it('reviews: only a pending entry of the right queue; disapproving deletes, approving a blocked one delivers it anew', () => {
    const pendingBlocked = { id: '7', queue: 'blocked' as const, status: 'pending' as const };
    const delivered = { ...message('9'), sentAt: 20 };
    spec
      .given([blocked])
      .when({ type: 'ReviewBlocked', entry: pendingBlocked, review: review('approved', 'blocked', { deliveredAs: '9' }), delivered })
      .then([
        { type: 'MessageReviewed', data: review('approved', 'blocked', { deliveredAs: '9' }) },
        { type: 'MessageSent', data: delivered },
      ]);
    spec.given([blocked]).when({ type: 'ReviewBlocked', entry: { ...pendingBlocked, status: 'rejected' }, review: review('approved', 'blocked') }).thenThrows(refusedWith('ERR_MESSAGE_ALREADY_REVIEWED'));
    spec.given([]).when({ type: 'ReviewFlagged', entry: pendingBlocked, review: review('approved', 'flagged') }).thenThrows(refusedWith('ERR_MESSAGE_NOT_IN_REVIEW'));
    const deletion = { id: '7', conversationId: 'alice_user_bob', sender: 'alice', permanent: false, deletedBy: 'app_system', deletedAt: 20 };
    spec
      .given([])
      .when({ type: 'ReviewFlagged', entry: { id: '7', queue: 'flagged', status: 'pending' }, review: review('disapproved', 'flagged'), deletion })
      .then([
        { type: 'MessageReviewed', data: review('disapproved', 'flagged') },
        { type: 'MessageDeleted', data: deletion },
      ]);
  });

  it('a flag needs a live message and a known reason', () => {
    const flag = { id: '7', conversationId: 'alice_user_bob', flaggedBy: 'bob', reasonId: 'spam', flaggedAt: 30 };
    spec.given([]).when({ type: 'FlagMessage', target: { id: '7', deleted: false, category: 'message' }, reasonKnown: true, flag }).then([{ type: 'MessageFlagged', data: flag }]);
    spec.given([]).when({ type: 'FlagMessage', target: { id: '7', deleted: false, category: 'message' }, reasonKnown: false, flag }).thenThrows(refusedWith('ERR_REASON_NOT_FOUND'));
    spec.given([]).when({ type: 'FlagMessage', target: { id: '7', deleted: true, category: 'message' }, reasonKnown: true, flag }).thenThrows(refusedWith('ERR_MESSAGE_ACTION_NOT_ALLOWED'));
    spec.given([]).when({ type: 'FlagMessage', target: null, reasonKnown: true, flag }).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
  });
});
