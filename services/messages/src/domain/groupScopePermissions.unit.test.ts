import { ApiError } from '@chat/contracts';
import type { MessageSent } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { conversationLogDecider } from './conversationLog.js';
import type { SendMessage } from './conversationLog.js';
import { deniedActions } from './groupScopePermissions.js';

const spec = specFor(conversationLogDecider);
const denied = (error: unknown) => error instanceof ApiError && error.code === 'ERR_PERMISSION_DENIED' && error.status === 403;

const groupMessage = (extra: Partial<MessageSent> = {}): MessageSent => ({
  id: '7',
  conversationId: 'group_club',
  sender: 'alice',
  receiver: 'club',
  receiverType: 'group',
  category: 'message',
  type: 'text',
  data: { text: 'hi' },
  sentAt: 100,
  ...extra,
});
const send = (values: Record<string, string | string[]>, extra: Partial<SendMessage> = {}): SendMessage => ({
  type: 'SendMessage',
  message: groupMessage(),
  sender: { uid: 'alice', active: true, blocked: [] },
  receiver: { kind: 'group', group: { guid: 'club', senderStanding: 'member', denied: deniedActions(values, 'participant') } },
  ...extra,
});

describe('group scope permissions', () => {
  it('deny exactly the actions set to deny, and those whose allowedScopes leave the scope out', () => {
    expect(deniedActions({}, 'participant')).toEqual([]);
    expect(deniedActions({ sendMessage: 'deny' }, 'participant')).toEqual(['sendMessage']);
    expect(deniedActions({ 'listReactions.allowedScopes': 'admin,moderator' }, 'participant')).toEqual(['listReactions']);
    expect(deniedActions({ 'listReactions.allowedScopes': ['participant'] }, 'participant')).toEqual([]);
  });

  it('a member whose scope is denied sendMessage cannot send; allowed again, it can', () => {
    spec.given([]).when(send({ sendMessage: 'deny' })).thenThrows(denied);
    spec.given([]).when(send({ sendMessage: 'allow' })).then([{ type: 'MessageSent', data: groupMessage() }]);
  });

  it('a thread reply is gated by sendThreadedMessage, not sendMessage', () => {
    const parent = { id: '5', conversationId: 'group_club', sender: 'bob', category: 'message', deleted: false, reactions: [] };
    const reply = { message: groupMessage({ parentId: '5' }), parent };
    spec.given([]).when(send({ sendThreadedMessage: 'deny' }, reply)).thenThrows(denied);
    spec.given([]).when(send({ sendMessage: 'deny' }, reply)).then([{ type: 'MessageSent', data: groupMessage({ parentId: '5' }) }]);
  });

  it('edits and reactions of a denied member are refused; the app itself is never bound', () => {
    const target = { id: '5', conversationId: 'group_club', sender: 'alice', category: 'message', deleted: false, reactions: [] };
    const member = { kind: 'user' as const, uid: 'alice', standing: 'participant' as const, denied: deniedActions({ editMessage: 'deny', addReaction: 'deny' }, 'participant') };
    const edit = { id: '5', conversationId: 'group_club', data: { text: 'x' }, editedAt: 200 };
    spec.given([]).when({ type: 'EditMessage', target, actor: member, edit }).thenThrows(denied);
    spec.given([]).when({ type: 'EditMessage', target, actor: { kind: 'app' }, edit }).then([{ type: 'MessageEdited', data: edit }]);
    const reaction = { id: '5', conversationId: 'group_club', reaction: '👍', uid: 'alice', reactedAt: 200 };
    spec.given([]).when({ type: 'ReactToMessage', target, actor: member, reaction }).thenThrows(denied);
  });
});
