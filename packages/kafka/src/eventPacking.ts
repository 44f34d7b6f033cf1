import { isPackableEvent, usersImportedRecord } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';

/** One record to produce: an event alone, or a pack; `members` are the indexes of the events it carries. */
export interface PublishUnit {
  event: EventEnvelope;
  members: readonly number[];
  /** Set on a pack: the type of the events it carries (its `packedType` header). */
  packedType?: string;
}

/**
 * The records a publish becomes (ADR 0111): in the publish's order, each imported `UserCreated` joins
 * the open pack of its (partition, app, key id), or opens one where it stands; any other event closes
 * its partition's open packs, so no partition's records change order. A pack of one stays the event
 * itself. `partitionOf` is the producer's own partitioner for a record key (the stream id).
 */
export function packImportedUsers(events: readonly EventEnvelope[], partitionOf: (key: string) => number): PublishUnit[] {
  const slots: Array<{ members: number[] }> = [];
  /** Per partition, its open packs by app and key id. */
  const open = new Map<number, Map<string, { members: number[] }>>();
  for (const [index, event] of events.entries()) {
    const partition = partitionOf(event.streamId);
    if (!isPackableEvent(event)) {
      open.delete(partition);
      slots.push({ members: [index] });
      continue;
    }
    const packs = open.get(partition) ?? new Map<string, { members: number[] }>();
    open.set(partition, packs);
    const packKey = `${event.appId}\u0000${event.actor.keyId}`;
    const pack = packs.get(packKey);
    if (pack) {
      pack.members.push(index);
      continue;
    }
    const opened = { members: [index] };
    packs.set(packKey, opened);
    slots.push(opened);
  }
  return slots.map(({ members }) => {
    if (members.length === 1) return { event: events[members[0]!]!, members };
    const packed = members.map((index) => events[index]!);
    return { event: usersImportedRecord(packed), members, packedType: packed[0]!.type };
  });
}
