import { describe, expect, it } from 'vitest';
import type { GroupEvent, KnownGroupDoc } from '../projections/groups.js';
import { testEnvelope } from '@chat/eventsourcing/testing';
import type { KnownUserDoc } from '../projections/users.js';
import { actionMessageCount, actionMessages, planGroupActions } from './groupActions.js';

function groupEvent(type: string, version: number, data: Record<string, unknown>): GroupEvent {
  return testEnvelope(type, 'group:app1:g', version, { guid: 'g', ...data }) as GroupEvent;
}

const group: KnownGroupDoc = {
  kind: 'group', appId: 'app1', guid: 'g', name: 'G', type: 'public', owner: 'o', membersCount: 3, createdAt: 1, updatedAt: 1, deleted: false,
};
const person = (uid: string): KnownUserDoc => ({
  kind: 'user', appId: 'app1', uid, name: uid.toUpperCase(), role: 'default', tags: [], createdAt: 1, deactivated: false, deleted: false, blocked: [],
});
const users = new Map(['o', 'a', 'b'].map((uid) => [uid, person(uid)]));

describe('group action messages', () => {
  it('adding members makes one `added` message per member, skipping the owner added at creation and self-adds', () => {
    const plan = planGroupActions(
      groupEvent('GroupMembersAdded', 2, { members: [{ uid: 'o', scope: 'admin' }, { uid: 'a', scope: 'participant' }, { uid: 'b', scope: 'moderator' }], addedBy: 'o', addedAt: 5 }),
      'o',
    );
    expect(plan).toMatchObject({ action: 'added', actor: 'o', targets: ['a', 'b'] });
    const messages = actionMessages(plan!, { streamId: 'group:app1:g', version: 2 }, group, users, ['10', '11']);
    expect(messages.map((m) => [m.id, m.sender, (m.data['entities'] as any).on.entity.uid])).toEqual([['10', 'o', 'a'], ['11', 'o', 'b']]);
    expect(messages[0]).toMatchObject({
      conversationId: 'group_g',
      receiver: 'g',
      receiverType: 'group',
      category: 'action',
      type: 'groupMember',
      sentAt: 5,
      sourceEvent: { streamId: 'group:app1:g', version: 2 },
      data: { action: 'added', entities: { by: { entityType: 'user', entity: { uid: 'o', name: 'O' } }, for: { entityType: 'group', entity: { guid: 'g', membersCount: 3 } } } },
    });
    expect(planGroupActions(groupEvent('GroupMembersAdded', 2, { members: [{ uid: 'o', scope: 'admin' }], addedAt: 5 }), 'o')).toBeNull();
  });

  it('the app acting is `app_system`; an unknown user still gets an entity with its uid', () => {
    const plan = planGroupActions(groupEvent('GroupMemberKicked', 4, { uid: 'zed', kickedAt: 9 }), 'o');
    const [message] = actionMessages(plan!, { streamId: 's', version: 4 }, group, users, ['20']);
    expect(message?.sender).toBe('app_system');
    expect((message?.data['entities'] as any).by.entity.uid).toBe('app_system');
    expect((message?.data['entities'] as any).on.entity).toEqual({ uid: 'zed', name: 'zed', status: 'offline', role: 'default', createdAt: 0 });
  });

  it('scope changes carry the old and new scope; group updates are about the group; create/delete say nothing', () => {
    const scope = planGroupActions(groupEvent('GroupMemberScopeChanged', 5, { uid: 'a', scope: 'admin', previousScope: 'participant', changedBy: 'o', changedAt: 3 }), 'o');
    expect(scope?.extra).toMatchObject({ scope: 'admin', oldScope: 'participant' });
    const updated = planGroupActions(groupEvent('GroupUpdated', 6, { changes: { name: 'H' }, removed: [], updatedBy: 'o', updatedAt: 4 }), 'o');
    expect(actionMessageCount(updated!)).toBe(1);
    const [message] = actionMessages(updated!, { streamId: 's', version: 6 }, group, users, ['30']);
    expect((message?.data['entities'] as any).on).toMatchObject({ entityType: 'group', entity: { guid: 'g' } });
    expect(planGroupActions(groupEvent('GroupCreated', 1, { name: 'G', type: 'public', owner: 'o', tags: [], createdAt: 1 }), 'o')).toBeNull();
    expect(planGroupActions(groupEvent('GroupDeleted', 9, { deletedAt: 1 }), 'o')).toBeNull();
    for (const [type, action] of [['GroupMemberJoined', 'joined'], ['GroupMemberLeft', 'left'], ['GroupMemberBanned', 'banned'], ['GroupMemberUnbanned', 'unbanned']] as const) {
      expect(planGroupActions(groupEvent(type, 7, { uid: 'a', scope: 'participant', joinedAt: 1, leftAt: 1, bannedAt: 1, unbannedAt: 1 }), 'o')?.action).toBe(action);
    }
  });
});
