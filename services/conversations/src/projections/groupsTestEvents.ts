import type { EventEnvelope } from '@chat/contracts';
import { fold } from '@chat/eventsourcing';
import { groupDecider } from '../domain/group.js';
import type { GroupCommand, GroupEvent } from '../domain/group.js';
import { testEnvelope } from './testEvents.js';

/**
 * A group's history as the decider writes it, in envelopes of the stream `group:app1:<guid>`:
 * shared by the pure projection tests and the ones on FerretDB.
 */
export function groupHistory(guid: string, commands: GroupCommand[], firstVersion = 1, earlier: GroupEvent[] = []): EventEnvelope[] {
  const decider = groupDecider(guid);
  const events: GroupEvent[] = [...earlier];
  const produced: GroupEvent[] = [];
  for (const command of commands) {
    const next = decider.decide(command, fold(decider, events));
    events.push(...next);
    produced.push(...next);
  }
  return produced.map((event, index) => testEnvelope(event.type, `group:app1:${guid}`, firstVersion + index, event.data as unknown as Record<string, unknown>));
}

/** Envelopes back to the domain events a later `groupHistory` continues from. */
export function asDomainEvents(envelopes: readonly EventEnvelope[]): GroupEvent[] {
  return envelopes.map((envelope) => ({ type: envelope.type, data: envelope.data }) as GroupEvent);
}

/** The history with the group deleted at its end. */
export function deletedAfter(history: readonly EventEnvelope[], guid = 'g'): EventEnvelope[] {
  return [...history, ...groupHistory(guid, [{ type: 'DeleteGroup', now: 20 }], history.length + 1, asDomainEvents(history))];
}

const known = ['o', 'a', 'p', 'q', 'x'];

/** o creates g with a and p; q joins; p is promoted, x banned then unbanned, q kicked, a leaves. */
export const lifeOfAGroup: GroupCommand[] = [
  {
    type: 'CreateGroup',
    profile: { guid: 'g', name: 'Gee', type: 'public', owner: 'o', tags: ['t'], metadata: { 'dotted.key': [[1]] } },
    members: [{ uid: 'a', scope: 'admin' }, { uid: 'p', scope: 'participant' }],
    usersToBan: [],
    by: 'o',
    now: 10,
  },
  { type: 'AddMembers', members: [{ uid: 'q', scope: 'participant' }], usersToBan: [], knownUsers: known, by: 'q', now: 11 },
  { type: 'ChangeMemberScope', uid: 'p', scope: 'moderator', by: 'o', now: 12 },
  { type: 'BanMember', uid: 'x', by: 'a', now: 13 },
  { type: 'UpdateGroup', changes: { name: 'Gee 2', description: 'about' }, removed: ['metadata'], by: 'a', now: 14 },
  { type: 'KickMember', uid: 'q', by: 'p', now: 15 },
  { type: 'UnbanMember', uid: 'x', now: 16 },
  { type: 'KickMember', uid: 'a', by: 'a', now: 17 },
];
