import type { GroupProfile, GroupScope, GroupScopePermissionId } from '@chat/contracts';
import type { PermissionValue, Roster } from './groupState.js';

export interface ImportedMember {
  uid: string;
  scope: GroupScope;
  joinedAt: number;
  banned: boolean;
}

export interface MemberRequest {
  uid: string;
  scope: GroupScope;
}

/**
 * `by` is the acting user (onBehalfOf); absent when the app itself acts, with every right. `roster`
 * covers `by` and every uid the command names (absent: nobody is a member or banned).
 */
export type GroupCommand = GroupCommandBody & { roster?: Roster };

type GroupCommandBody =
  | {
      type: 'CreateGroup';
      profile: GroupProfile;
      passwordHash?: string;
      members: MemberRequest[];
      usersToBan: string[];
      by?: string;
      now: number;
    }
  | {
      type: 'UpdateGroup';
      changes: Partial<Omit<GroupProfile, 'guid'>> & { passwordHash?: string };
      removed: Array<'icon' | 'description' | 'metadata'>;
      by?: string;
      now: number;
    }
  | { type: 'DeleteGroup'; by?: string; now: number }
  /** A group from a data import with the caller's creation time; an existing guid makes it a no-op. */
  | { type: 'ImportGroup'; profile: GroupProfile; passwordHash?: string; createdAt: number }
  /**
   * Members from a data import, checked by the caller (users exist, `joinedAt` within the group's
   * life); those already members, or already banned, are left as they are (reruns).
   */
  | { type: 'ImportMembers'; members: ImportedMember[] }
  | {
      type: 'AddMembers';
      members: MemberRequest[];
      usersToBan: string[];
      /** Uids known to exist; the others are reported as unknown. */
      knownUsers: string[];
      /**
       * A password the joining user gave: `verifiedHash` is the hash it matched (absent when it
       * matched none). The check is done outside because hashing is slow and not pure.
       */
      password?: { verifiedHash?: string };
      by?: string;
      now: number;
    }
  | { type: 'KickMember'; uid: string; by?: string; now: number }
  | { type: 'ChangeMemberScope'; uid: string; scope: GroupScope; by?: string; now: number }
  | { type: 'BanMember'; uid: string; by?: string; now: number }
  | { type: 'UnbanMember'; uid: string; by?: string; now: number }
  | { type: 'SetScopePermissions'; scope: GroupScope; permissions: Partial<Record<GroupScopePermissionId, PermissionValue>>; now: number }
  | { type: 'UnsetScopePermission'; scope: GroupScope; permission: GroupScopePermissionId; now: number };
