import type { KnownEvent } from '@chat/contracts';

/**
 * One change of who is in a group: `uid` joined (`member`) or left; no `uid`: the group is gone and
 * nobody is in it.
 */
export interface MembershipChange {
  appId: string;
  guid: string;
  uid?: string;
  member: boolean;
}

/** The group membership event types realtime follows on the conversations topic. */
export const membershipEventTypes = ['GroupMemberJoined', 'GroupMembersAdded', 'GroupMemberLeft', 'GroupMemberKicked', 'GroupMemberBanned', 'GroupDeleted'] as const;

const joining = new Set(['joined', 'added']);
const leaving = new Set(['left', 'kicked', 'banned']);

/**
 * What an event changes of group membership. Besides the group events, a group's action message
 * (`category: action`, on the messages topic in the group conversation's partition) says the same:
 * applying it too means a message sent after a join, in that conversation's order, reaches the new
 * member even when the conversations topic is read later than the messages topic.
 */
export function membershipChangesOf(event: KnownEvent): MembershipChange[] {
  const appId = event.appId;
  if (event.type === 'GroupMemberJoined') return [{ appId, guid: event.data.guid, uid: event.data.uid, member: true }];
  if (event.type === 'GroupMembersAdded') return event.data.members.map((m) => ({ appId, guid: event.data.guid, uid: m.uid, member: true }));
  if (event.type === 'GroupMemberLeft' || event.type === 'GroupMemberKicked' || event.type === 'GroupMemberBanned') {
    return [{ appId, guid: event.data.guid, uid: event.data.uid, member: false }];
  }
  if (event.type === 'GroupDeleted') return [{ appId, guid: event.data.guid, member: false }];
  if (event.type !== 'MessageSent') return [];
  const m = event.data;
  if (m.receiverType !== 'group' || m.category !== 'action' || m.imported) return [];
  const target = actionTargetOf(m.data);
  const action = m.data['action'];
  if (target === undefined || typeof action !== 'string') return [];
  if (joining.has(action)) return [{ appId, guid: m.receiver, uid: target, member: true }];
  if (leaving.has(action)) return [{ appId, guid: m.receiver, uid: target, member: false }];
  return [];
}

/** The user a group action message is about (`entities.on`, when it is a user). */
export function actionTargetOf(data: Record<string, unknown>): string | undefined {
  const entities = data['entities'] as { on?: { entity?: { uid?: unknown }; entityType?: unknown } } | undefined;
  const on = entities?.on;
  return on?.entityType === 'user' && typeof on.entity?.uid === 'string' ? on.entity.uid : undefined;
}

/** A user's groups after `changes` (in order), starting from `groups` (a read model's answer). */
export function foldMemberships(groups: Iterable<string>, appId: string, uid: string, changes: Iterable<MembershipChange>): Set<string> {
  const result = new Set(groups);
  for (const change of changes) {
    if (change.appId !== appId) continue;
    if (change.uid === undefined) result.delete(change.guid);
    else if (change.uid === uid) {
      if (change.member) result.add(change.guid);
      else result.delete(change.guid);
    }
  }
  return result;
}
