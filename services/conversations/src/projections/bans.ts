import type { EventEnvelope } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { groupMemberDocId, isGroupEvent } from './groupsEvents.js';
import type { GroupEventEnvelope } from './groupsEvents.js';

export interface BanDoc {
  appId: string;
  guid: string;
  uid: string;
  bannedAt: number;
  /** False once unbanned: the tombstone keeps the position guard against redelivered bans. */
  active: boolean;
}

type Handled = Extract<GroupEventEnvelope, { type: 'GroupMemberBanned' | 'GroupMemberUnbanned' }>;

/** The users banned from each group (a deleted group's bans are removed by the read-model adapter). */
export const bansProjection: Projection<BanDoc, Handled> = {
  name: 'group_bans',
  canHandle: (event: EventEnvelope): event is Handled =>
    isGroupEvent(event) && (event.type === 'GroupMemberBanned' || event.type === 'GroupMemberUnbanned'),
  documentIds: (event) => [groupMemberDocId(event.appId, event.data.guid, event.data.uid)],
  sourceOf: () => 'group',
  evolve(doc, event) {
    if (event.type === 'GroupMemberUnbanned') return doc ? { ...doc, active: false } : null;
    const { guid, uid, bannedAt } = event.data;
    return { appId: event.appId, guid, uid, bannedAt, active: true };
  },
};
