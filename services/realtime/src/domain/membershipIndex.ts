import type { MembershipChange } from './membership.js';

function key(appId: string, id: string): string {
  return `${appId}\n${id}`;
}

/**
 * Group → connected members, for the users with a connection on this replica only (ADR 0069): a group
 * message is handed to the members found here, never looked up per message. A user's groups are set
 * when its first connection opens and dropped when its last one closes; the membership changes the
 * broadcast consumer sees keep both sides current meanwhile.
 */
export class MembershipIndex {
  private readonly groupsByUser = new Map<string, Set<string>>();
  private readonly membersByGroup = new Map<string, Set<string>>();

  /** Whether the user's groups are held (a connection of it is open here). */
  holds(appId: string, uid: string): boolean {
    return this.groupsByUser.has(key(appId, uid));
  }

  groupsOf(appId: string, uid: string): ReadonlySet<string> {
    return this.groupsByUser.get(key(appId, uid)) ?? new Set();
  }

  /** The connected members of a group (empty when none is connected here). */
  membersOf(appId: string, guid: string): ReadonlySet<string> {
    return this.membersByGroup.get(key(appId, guid)) ?? new Set();
  }

  isMember(appId: string, guid: string, uid: string): boolean {
    return this.groupsByUser.get(key(appId, uid))?.has(guid) ?? false;
  }

  /** The user's whole set of groups, replacing what was held. */
  setUser(appId: string, uid: string, groups: Iterable<string>): void {
    this.dropUser(appId, uid);
    const own = new Set<string>();
    this.groupsByUser.set(key(appId, uid), own);
    for (const guid of groups) this.add(appId, guid, uid, own);
  }

  dropUser(appId: string, uid: string): void {
    const own = this.groupsByUser.get(key(appId, uid));
    if (!own) return;
    this.groupsByUser.delete(key(appId, uid));
    for (const guid of own) this.removeMember(appId, guid, uid);
  }

  /** A change seen on the topics; users not held here are not tracked. */
  apply(change: MembershipChange): void {
    if (change.uid === undefined) {
      const members = this.membersByGroup.get(key(change.appId, change.guid));
      if (!members) return;
      this.membersByGroup.delete(key(change.appId, change.guid));
      for (const uid of members) this.groupsByUser.get(key(change.appId, uid))?.delete(change.guid);
      return;
    }
    const own = this.groupsByUser.get(key(change.appId, change.uid));
    if (!own) return;
    if (change.member) this.add(change.appId, change.guid, change.uid, own);
    else {
      own.delete(change.guid);
      this.removeMember(change.appId, change.guid, change.uid);
    }
  }

  private add(appId: string, guid: string, uid: string, own: Set<string>): void {
    own.add(guid);
    const groupKey = key(appId, guid);
    let members = this.membersByGroup.get(groupKey);
    if (!members) this.membersByGroup.set(groupKey, (members = new Set()));
    members.add(uid);
  }

  private removeMember(appId: string, guid: string, uid: string): void {
    const groupKey = key(appId, guid);
    const members = this.membersByGroup.get(groupKey);
    if (!members) return;
    members.delete(uid);
    if (members.size === 0) this.membersByGroup.delete(groupKey);
  }
}
