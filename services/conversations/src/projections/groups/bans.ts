import { groupBanEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { groupMemberDocId } from './groupsEvents.js';

export interface BanDoc {
  appId: string;
  guid: string;
  uid: string;
  bannedAt: number;
  /** False once unbanned: the tombstone keeps the position guard against redelivered bans. */
  active: boolean;
}

type Handled = EventOf<(typeof groupBanEventTypes)[number]>;

/** The users banned from each group (a deleted group's bans are removed by the read-model adapter). */
export const bansProjection: Projection<BanDoc, Handled> = {
  name: 'group_bans',
  eventTypes: groupBanEventTypes,
  documentIds: (event) => [groupMemberDocId(event.appId, event.data.guid, event.data.uid)],
  sourceOf: () => 'group',
  evolve(doc, event) {
    if (event.type === 'GroupMemberUnbanned') return doc ? { ...doc, active: false } : null;
    const { guid, uid, bannedAt } = event.data;
    return { appId: event.appId, guid, uid, bannedAt, active: true };
  },
};
