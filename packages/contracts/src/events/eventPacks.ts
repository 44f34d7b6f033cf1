import { z } from 'zod';
import { eventEnvelopeSchema } from '../envelope.js';
import type { EventEnvelope } from '../envelope.js';

/**
 * A record of `chat.users.events` that carries several events (ADR 0111): the imported users of one
 * publish whose streams share a partition, packed by the producer into one record instead of one
 * record each. Not an event of any stream: a reader unpacks it into the `UserCreated` envelopes it
 * holds, unchanged and in order, and handles them as if each had come alone.
 */
export const USERS_IMPORTED = 'UsersImported';
/** The one type a `UsersImported` record carries (its `packedType` header). */
export const USERS_IMPORTED_PACKS = 'UserCreated';

/** `data` of a `UsersImported` record (schema version 1): the `UserCreated` envelopes, `imported: true` each. */
export const usersImportedV1 = z.object({
  events: z.array(eventEnvelopeSchema.extend({ type: z.literal(USERS_IMPORTED_PACKS) })).min(1),
});

/** Whether an event may travel in a `UsersImported` record: a `UserCreated` of a data import. */
export function isPackableEvent(event: Pick<EventEnvelope, 'type' | 'data'>): boolean {
  return event.type === USERS_IMPORTED_PACKS && event.data['imported'] === true;
}

/**
 * The record of packed events (all of one app and one key id, in publish order). Its envelope fields
 * are its first event's (key, app, actor, time), `id` marked as the pack's, version that of the first.
 */
export function usersImportedRecord(events: readonly EventEnvelope[]): EventEnvelope {
  const first = events[0];
  if (!first) throw new Error('a UsersImported record needs an event');
  return {
    ...first,
    id: `${first.id}:pack`,
    type: USERS_IMPORTED,
    schemaVersion: 1,
    data: { events: [...events] },
  };
}

/**
 * The envelopes a `UsersImported` envelope carries, validated (null: its payload is not a pack of
 * this version). Each still has to pass its own type's schema (`parseKnownEvent`).
 */
export function unpackUsersImported(envelope: EventEnvelope): EventEnvelope[] | null {
  if (envelope.type !== USERS_IMPORTED || envelope.schemaVersion !== 1) return null;
  const parsed = usersImportedV1.safeParse(envelope.data);
  return parsed.success ? parsed.data.events : null;
}
