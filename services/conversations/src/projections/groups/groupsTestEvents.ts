import type { EventEnvelope } from '@chat/contracts';
import { fold } from '@chat/eventsourcing';
import { groupDecider } from '../../domain/groups/group.js';
import type { GroupCommand } from '../../domain/groups/groupCommands.js';
import { rosterOf } from '../../domain/groups/groupState.js';
import type { GroupEvent, Roster } from '../../domain/groups/groupState.js';
import { bansProjection } from './bans.js';
import type { BanDoc } from './bans.js';
import { membersProjection } from './members.js';
import type { MemberDoc } from './members.js';
import { testEnvelope } from '../testEvents.js';

/**
 * The roster a command gets in production: what the real member and ban projections make of the
 * history (a deleted group's documents are retired by the adapter: here, dropped).
 */
function handles(projection: { eventTypes: readonly string[] }, event: GroupEvent): boolean {
  return projection.eventTypes.includes(event.type);
}

export function rosterAfter(history: readonly GroupEvent[]): Roster {
  const members = new Map<string, MemberDoc | null>();
  const bans = new Map<string, BanDoc | null>();
  history.forEach((event, index) => {
    const envelope = testEnvelope(event.type, 'group:app1:g', index + 1, event.data);
    if (event.type === 'GroupDeleted') {
      members.clear();
      bans.clear();
    }
    // Only the types a projection lists reach its functions, as in the runtime.
    if (handles(membersProjection, event)) {
      const member = envelope as Parameters<typeof membersProjection.evolve>[1];
      for (const id of membersProjection.documentIds(member)) members.set(id, membersProjection.evolve(members.get(id) ?? null, member, id));
    }
    if (handles(bansProjection, event)) {
      const ban = envelope as Parameters<typeof bansProjection.evolve>[1];
      for (const id of bansProjection.documentIds(ban)) bans.set(id, bansProjection.evolve(bans.get(id) ?? null, ban, id));
    }
  });
  const present = <T>(docs: Map<string, T | null>) => [...docs.values()].filter((doc): doc is T => doc !== null);
  return rosterOf(present(members), present(bans));
}

/**
 * A group's history as the decider writes it, in envelopes of the stream `group:app1:<guid>`:
 * shared by the pure projection tests and the ones on FerretDB.
 */
export function groupHistory(guid: string, commands: GroupCommand[], firstVersion = 1, earlier: GroupEvent[] = []): EventEnvelope[] {
  const decider = groupDecider(guid);
  const events: GroupEvent[] = [...earlier];
  const produced: GroupEvent[] = [];
  for (const command of commands) {
    const next = decider.decide({ ...command, roster: rosterAfter(events) }, fold(decider, events));
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
