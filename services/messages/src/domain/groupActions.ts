import { groupConversationId } from '@chat/contracts';
import type { EventOf, MessageSent, UserEntity, UserProfileFields, groupEventTypes } from '@chat/contracts';
import { APP_SYSTEM, appSystemEntity, groupEntityOf, userEntityOf } from '@chat/contracts';
import type { GroupFacts } from '@chat/contracts';

type GroupEvent = EventOf<(typeof groupEventTypes)[number]>;

/** What one group event says in the group's conversation, before ids and entities are known. */
export interface GroupActionPlan {
  action: 'joined' | 'added' | 'left' | 'kicked' | 'banned' | 'unbanned' | 'scopeChanged' | 'updated';
  /** The acting user; absent when the app acted (the message's sender is then `app_system`). */
  actor?: string;
  /** The affected users, one action message each; empty for a change of the group itself. */
  targets: string[];
  extra?: Record<string, unknown>;
  at: number;
}

/**
 * The action messages a group event produces. Creating and deleting a group produce none; adding
 * the owner at creation (the owner as admin) produces none either, like CometChat's own creation.
 */
export function planGroupActions(event: GroupEvent, ownerOf: string | undefined): GroupActionPlan | null {
  switch (event.type) {
    case 'GroupMemberJoined':
      return { action: 'joined', actor: event.data.uid, targets: [event.data.uid], at: event.data.joinedAt };
    case 'GroupMembersAdded': {
      const { addedBy } = event.data;
      const targets = event.data.members
        .filter((m) => m.uid !== addedBy && !(m.uid === ownerOf && m.scope === 'admin'))
        .map((m) => m.uid);
      if (targets.length === 0) return null;
      return { action: 'added', ...(addedBy !== undefined ? { actor: addedBy } : {}), targets, at: event.data.addedAt };
    }
    case 'GroupMemberLeft':
      return { action: 'left', actor: event.data.uid, targets: [event.data.uid], at: event.data.leftAt };
    case 'GroupMemberKicked':
      return { action: 'kicked', ...actorOf(event.data.kickedBy), targets: [event.data.uid], at: event.data.kickedAt };
    case 'GroupMemberBanned':
      return { action: 'banned', ...actorOf(event.data.bannedBy), targets: [event.data.uid], at: event.data.bannedAt };
    case 'GroupMemberUnbanned':
      return { action: 'unbanned', ...actorOf(event.data.unbannedBy), targets: [event.data.uid], at: event.data.unbannedAt };
    case 'GroupMemberScopeChanged': {
      const { scope, previousScope } = event.data;
      return {
        action: 'scopeChanged',
        ...actorOf(event.data.changedBy),
        targets: [event.data.uid],
        // `scope`/`oldScope` as the brief's clients read them, `extras.scope` as CometChat's SDKs do.
        extra: { scope, oldScope: previousScope, extras: { scope: { new: scope, old: previousScope } } },
        at: event.data.changedAt,
      };
    }
    case 'GroupUpdated':
      return { action: 'updated', ...actorOf(event.data.updatedBy), targets: [], at: event.data.updatedAt };
    case 'GroupCreated':
    case 'GroupDeleted':
      return null;
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

function actorOf(uid: string | undefined): { actor?: string } {
  return uid !== undefined ? { actor: uid } : {};
}

/** A user this service has not (yet) heard of still gets an entity: its uid, nothing invented. */
function entityFor(uid: string, users: ReadonlyMap<string, UserProfileFields>): UserEntity {
  const user = users.get(uid);
  return user ? userEntityOf(user) : { uid, name: uid, status: 'offline', role: 'default', createdAt: 0 };
}

/** How many message ids a plan needs. */
export function actionMessageCount(plan: GroupActionPlan): number {
  return Math.max(1, plan.targets.length);
}

/**
 * The plan as `category: action` messages of the group's conversation, with `entities.by` (actor),
 * `entities.for` (the group) and `entities.on` (the affected user, or the group for `updated`).
 */
export function actionMessages(
  plan: GroupActionPlan,
  source: { streamId: string; version: number },
  group: GroupFacts,
  users: ReadonlyMap<string, UserProfileFields>,
  ids: readonly string[],
): MessageSent[] {
  const by = plan.actor !== undefined ? entityFor(plan.actor, users) : appSystemEntity();
  const groupEntity = { entity: groupEntityOf(group), entityType: 'group' };
  const ons = plan.targets.length > 0
    ? plan.targets.map((uid) => ({ entity: entityFor(uid, users), entityType: 'user' }))
    : [groupEntity];
  return ons.map((on, index) => ({
    id: ids[index] ?? '0',
    conversationId: groupConversationId(group.guid),
    sender: plan.actor ?? APP_SYSTEM,
    receiver: group.guid,
    receiverType: 'group',
    category: 'action',
    type: 'groupMember',
    data: {
      action: plan.action,
      entities: { by: { entity: by, entityType: 'user' }, for: groupEntity, on },
      ...plan.extra,
    },
    sentAt: plan.at,
    sourceEvent: source,
  }));
}
