import { ApiError } from '@chat/contracts';
import type { MessageSent } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import { StaleMessageIdError, conversationLogDecider } from './conversationLog.js';
import type { ConversationLogEvent, MessageActor, MessageFacts, SendMessage, UserFacts } from './conversationLog.js';

const spec = specFor(conversationLogDecider);
const refusedWith = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;

const user = (uid: string, blocked: string[] = [], active = true): UserFacts => ({ uid, active, blocked });
const message = (id: string, extra: Partial<MessageSent> = {}): MessageSent => ({
  id,
  conversationId: 'alice_user_bob',
  sender: 'alice',
  receiver: 'bob',
  receiverType: 'user',
  category: 'message',
  type: 'text',
  data: { text: `m${id}` },
  sentAt: 100,
  ...extra,
});
const sent = (id: string, extra: Partial<MessageSent> = {}): ConversationLogEvent => ({ type: 'MessageSent', data: message(id, extra) });
const toBob = (id: string, extra: Partial<SendMessage> = {}): SendMessage => ({
  type: 'SendMessage',
  message: message(id),
  sender: user('alice'),
  receiver: { kind: 'user', user: user('bob') },
  ...extra,
});
const toGroup = (id: string, standing: 'member' | 'banned' | 'none' | null): SendMessage => ({
  type: 'SendMessage',
  message: message(id, { conversationId: 'group_club', receiver: 'club', receiverType: 'group' }),
  sender: user('alice'),
  receiver: { kind: 'group', group: standing === null ? null : { guid: 'club', senderStanding: standing } },
});
const facts = (extra: Partial<MessageFacts> = {}): MessageFacts => ({
  id: '5',
  conversationId: 'alice_user_bob',
  sender: 'alice',
  category: 'message',
  deleted: false,
  reactions: [],
  ...extra,
});
const alice: MessageActor = { kind: 'user', uid: 'alice', standing: 'participant' };
const bob: MessageActor = { kind: 'user', uid: 'bob', standing: 'participant' };
const app: MessageActor = { kind: 'app' };
const edit = { id: '5', conversationId: 'alice_user_bob', data: { text: 'new' }, editedBy: 'alice', editedAt: 200 };
const deletion = (permanent = false) => ({ id: '5', conversationId: 'alice_user_bob', sender: 'alice', permanent, deletedBy: 'alice', deletedAt: 200 });
const reaction = { id: '5', conversationId: 'alice_user_bob', reaction: '👍', uid: 'bob', reactedAt: 200 };
const removal = { id: '5', conversationId: 'alice_user_bob', reaction: '👍', uid: 'bob', removedAt: 300 };

describe('conversation log decider', () => {
  describe('send', () => {
    it('an active sender to an active user → MessageSent', () => {
      spec.given([]).when(toBob('1')).then([sent('1')]);
    });

    it('unknown or deactivated sender or receiver → ERR_UID_NOT_FOUND', () => {
      spec.given([]).when(toBob('1', { sender: null })).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
      spec.given([]).when(toBob('1', { sender: user('alice', [], false) })).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
      spec.given([]).when(toBob('1', { receiver: { kind: 'user', user: null } })).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
      spec.given([]).when(toBob('1', { receiver: { kind: 'user', user: user('bob', [], false) } })).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
    });

    it('blocked either way → ERR_BLOCKED_RECEIVER (sender blocked) / ERR_BLOCKED_SENDER (receiver blocked)', () => {
      spec.given([]).when(toBob('1', { sender: user('alice', ['bob']) })).thenThrows(refusedWith('ERR_BLOCKED_RECEIVER'));
      spec.given([]).when(toBob('1', { receiver: { kind: 'user', user: user('bob', ['alice']) } })).thenThrows(refusedWith('ERR_BLOCKED_SENDER'));
      spec.given([]).when(toBob('1', { receiver: { kind: 'user', user: user('bob', ['carol']) } })).then([sent('1')]);
    });

    it('to a group: members only, the banned and unknown guids refused', () => {
      spec.given([]).when(toGroup('1', 'member')).then([{ type: 'MessageSent', data: toGroup('1', 'member').message }]);
      spec.given([]).when(toGroup('1', 'none')).thenThrows(refusedWith('ERR_GROUP_NOT_JOINED'));
      spec.given([]).when(toGroup('1', 'banned')).thenThrows(refusedWith('ERR_BANNED_GROUPMEMBER'));
      spec.given([]).when(toGroup('1', null)).thenThrows(refusedWith('ERR_GUID_NOT_FOUND'));
    });

    it('ids only grow within a conversation: a lower id than the last is stale, to be re-allocated', () => {
      spec.given([sent('7')]).when(toBob('8')).then([sent('8')]);
      spec.given([sent('7')]).when(toBob('6')).thenThrows((e) => e instanceof StaleMessageIdError);
      spec.given([sent('7')]).when(toBob('7')).thenThrows((e) => e instanceof StaleMessageIdError);
    });

    it('thread replies: to an existing first message of the same conversation, no nesting', () => {
      const reply = (parent: MessageFacts | null) => toBob('9', { message: message('9', { parentId: '5' }), parent });
      spec.given([sent('5')]).when(reply(facts())).then([sent('9', { parentId: '5' })]);
      spec.given([sent('5')]).when(reply(null)).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
      spec.given([sent('5')]).when(reply(facts({ deleted: true }))).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
      spec.given([sent('5')]).when(reply(facts({ parentId: '2' }))).thenThrows(refusedWith('ERR_MESSAGE_THREAD_NESTING'));
      spec.given([sent('5')]).when(reply(facts({ conversationId: 'carol_user_dave' }))).thenThrows(refusedWith('ERR_WRONG_MESSAGE_THREAD'));
    });

    it('a quoted message must exist in the same conversation', () => {
      const quoting = (quoted: MessageFacts | null) => toBob('9', { message: message('9', { quotedMessageId: '5' }), quoted });
      spec.given([]).when(quoting(facts())).then([sent('9', { quotedMessageId: '5' })]);
      spec.given([]).when(quoting(null)).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
      spec.given([]).when(quoting(facts({ conversationId: 'group_x' }))).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    });
  });

  describe('edit', () => {
    it('by the sender or the app → MessageEdited', () => {
      spec.given([sent('5')]).when({ type: 'EditMessage', target: facts(), actor: alice, edit }).then([{ type: 'MessageEdited', data: edit }]);
      spec.given([sent('5')]).when({ type: 'EditMessage', target: facts(), actor: app, edit }).then([{ type: 'MessageEdited', data: edit }]);
    });

    it('refused to others, outsiders, on unknown, deleted and action messages', () => {
      const when = (target: MessageFacts | null, actor: MessageActor) => spec.given([]).when({ type: 'EditMessage', target, actor, edit });
      when(facts(), bob).thenThrows(refusedWith('ERR_MESSAGE_NOT_A_SENDER'));
      when(facts(), { kind: 'user', uid: 'bob', standing: 'moderator' }).thenThrows(refusedWith('ERR_MESSAGE_NOT_A_SENDER'));
      when(facts(), { kind: 'user', uid: 'zed', standing: 'outsider' }).thenThrows(refusedWith('ERR_MESSAGE_NO_ACCESS'));
      when(null, alice).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
      when(facts({ deleted: true }), alice).thenThrows(refusedWith('ERR_MESSAGE_ACTION_NOT_ALLOWED'));
      when(facts({ category: 'action' }), app).thenThrows(refusedWith('ERR_MESSAGE_ACTION_NOT_ALLOWED'));
    });
  });

  describe('delete', () => {
    it('soft by the sender, a group moderator or the app; permanent also after a soft delete', () => {
      const when = (target: MessageFacts, actor: MessageActor, permanent = false) =>
        spec.given([]).when({ type: 'DeleteMessage', target, actor, deletion: deletion(permanent) });
      when(facts(), alice).then([{ type: 'MessageDeleted', data: deletion() }]);
      when(facts(), app).then([{ type: 'MessageDeleted', data: deletion() }]);
      when(facts(), { kind: 'user', uid: 'mod', standing: 'moderator' }).then([{ type: 'MessageDeleted', data: deletion() }]);
      when(facts({ deleted: true }), alice, true).then([{ type: 'MessageDeleted', data: deletion(true) }]);
    });

    it('deleting a soft-deleted message again changes nothing (idempotent)', () => {
      spec.given([]).when({ type: 'DeleteMessage', target: facts({ deleted: true }), actor: alice, deletion: deletion() }).thenNothingHappens();
    });

    it('refused to a participant who did not send it, outsiders, unknown ids and action messages', () => {
      const when = (target: MessageFacts | null, actor: MessageActor) => spec.given([]).when({ type: 'DeleteMessage', target, actor, deletion: deletion() });
      when(facts(), bob).thenThrows(refusedWith('ERR_MESSAGE_NOT_A_SENDER'));
      when(facts(), { kind: 'user', uid: 'zed', standing: 'outsider' }).thenThrows(refusedWith('ERR_MESSAGE_NO_ACCESS'));
      when(null, app).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
      when(facts({ category: 'action' }), app).thenThrows(refusedWith('ERR_MESSAGE_ACTION_NOT_ALLOWED'));
    });
  });

  describe('react and unreact', () => {
    it('a participant reacts once per reaction; again is a no-op', () => {
      spec.given([]).when({ type: 'ReactToMessage', target: facts(), actor: bob, reaction }).then([{ type: 'MessageReactionAdded', data: reaction }]);
      spec
        .given([])
        .when({ type: 'ReactToMessage', target: facts({ reactions: [{ reaction: '👍', uid: 'bob' }] }), actor: bob, reaction })
        .thenNothingHappens();
    });

    it('refused to outsiders, on deleted and unknown messages', () => {
      spec.given([]).when({ type: 'ReactToMessage', target: facts(), actor: { kind: 'user', uid: 'bob', standing: 'outsider' }, reaction }).thenThrows(refusedWith('ERR_MESSAGE_NO_ACCESS'));
      spec.given([]).when({ type: 'ReactToMessage', target: facts({ deleted: true }), actor: bob, reaction }).thenThrows(refusedWith('ERR_MESSAGE_ACTION_NOT_ALLOWED'));
      spec.given([]).when({ type: 'ReactToMessage', target: null, actor: bob, reaction }).thenThrows(refusedWith('ERR_MESSAGE_ID_NOT_FOUND'));
    });

    it('removes only a reaction the user made', () => {
      spec
        .given([])
        .when({ type: 'RemoveReaction', target: facts({ reactions: [{ reaction: '👍', uid: 'bob' }] }), actor: bob, removal })
        .then([{ type: 'MessageReactionRemoved', data: removal }]);
      spec
        .given([])
        .when({ type: 'RemoveReaction', target: facts({ reactions: [{ reaction: '👍', uid: 'alice' }] }), actor: bob, removal })
        .thenThrows(refusedWith('ERR_REACTION_NOT_FOUND'));
    });
  });

  describe('action messages for group events', () => {
    const action = (id: string, version: number): MessageSent => ({
      ...message(id, { conversationId: 'group_club', receiver: 'club', receiverType: 'group', category: 'action', type: 'groupMember' }),
      data: { action: 'joined' },
      sourceEvent: { streamId: 'group:app1:club', version },
    });

    it('records the messages of a group event', () => {
      spec
        .given([])
        .when({ type: 'RecordGroupActions', groupEventVersion: 3, messages: [action('1', 3), action('2', 3)] })
        .then([{ type: 'MessageSent', data: action('1', 3) }, { type: 'MessageSent', data: action('2', 3) }]);
    });

    it('ignores a group event already recorded (redelivery, replay after a restart) or older', () => {
      const history: ConversationLogEvent[] = [{ type: 'MessageSent', data: action('4', 3) }];
      spec.given(history).when({ type: 'RecordGroupActions', groupEventVersion: 3, messages: [action('9', 3)] }).thenNothingHappens();
      spec.given(history).when({ type: 'RecordGroupActions', groupEventVersion: 2, messages: [action('9', 2)] }).thenNothingHappens();
      spec.given(history).when({ type: 'RecordGroupActions', groupEventVersion: 4, messages: [action('9', 4)] }).then([{ type: 'MessageSent', data: action('9', 4) }]);
    });

    it('ordinary messages in between do not reset what was recorded', () => {
      const history: ConversationLogEvent[] = [
        { type: 'MessageSent', data: action('4', 3) },
        sent('5', { conversationId: 'group_club', receiver: 'club', receiverType: 'group' }),
      ];
      spec.given(history).when({ type: 'RecordGroupActions', groupEventVersion: 3, messages: [action('9', 3)] }).thenNothingHappens();
    });
  });
});

describe('conversation log: data import', () => {
  it('appends imported messages in order, marked imported, keeping their own sentAt', () => {
    spec
      .given([sent('1')])
      .when({ type: 'ImportMessages', messages: [message('5', { muid: 'a', sentAt: 10 }), message('6', { muid: 'b', sentAt: 20 })] })
      .then([sent('5', { muid: 'a', sentAt: 10, imported: true }), sent('6', { muid: 'b', sentAt: 20, imported: true })]);
  });

  it('refuses ids below the conversation’s last one, so the caller takes new ones', () => {
    spec
      .given([sent('7')])
      .when({ type: 'ImportMessages', messages: [message('5', { muid: 'a' })] })
      .thenThrows((error) => error instanceof StaleMessageIdError);
  });
});

// Moderation verdicts and review decisions on the same stream.
const match = { ruleId: 'r', ruleName: 'R', revisionId: 'a_r_1', condition: { id: 1, entity: 'message', operand: 'text' as const, operator: 'contains' as const, category: 'word' as const, isKeywordsReferencePresent: false, isMediaPresent: false, value: ['x'] }, action: ['blockMessage' as const], matched: ['x'] };
const blocked: ConversationLogEvent = { type: 'MessageBlocked', data: { message: message('7'), match, blockedAt: 100 } };
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
        { type: 'MessageFlagged', data: { id: '8', conversationId: 'alice_user_bob', flaggedBy: 'moderation', match, flaggedAt: 100 } },
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
    const delivered = { ...message('9'), sentAt: 120 };
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
