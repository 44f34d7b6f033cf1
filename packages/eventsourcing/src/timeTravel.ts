import { ApiError, eventSchemas } from '@chat/contracts';
import type { AsOf, EventEnvelope, EventSchemaRegistry } from '@chat/contracts';

/** Where a time-travel read reads a stream's events, oldest first (the service's own commit store). */
export interface StreamReader {
  streamEvents(streamId: string): AsyncIterable<EventEnvelope>;
}

/** A stream's commits from one commit's first version on, each with its last version: what a page of a stream is cut at. */
export interface CommitReader extends StreamReader {
  streamCommits(streamId: string, from?: number): AsyncIterable<{ endVersion: number; events: EventEnvelope[] }>;
}

/**
 * One page of a stream for another service's time-travel read: whole commits from `from` until at
 * least `limit` events, and where the next page starts (null: the stream ends here).
 */
export async function streamPage(reader: CommitReader, streamId: string, from: number, limit: number): Promise<{ events: EventEnvelope[]; next: number | null }> {
  const events: EventEnvelope[] = [];
  for await (const commit of reader.streamCommits(streamId, from)) {
    events.push(...commit.events);
    if (events.length >= limit) return { events, next: commit.endVersion + 1 };
  }
  return { events, next: null };
}

/**
 * How many events one time-travel read may replay, over all its streams, unless configured: at the
 * measured 0.9–3.7 s per 1,000 events on a loaded 2-core machine (ADR 0033), well inside the gateway's
 * 15 s answer timeout, so a refused read is a 422, never a 504.
 */
export const DEFAULT_MAX_REPLAY_EVENTS = 2_000;

/**
 * The events of `streamIds` that lie within `asOf` (ADR 0033), each stream in version order, one after
 * the other. A time keeps every stream's events up to its first one after that time. A token keeps a
 * stream it names up to the version it names, and any other stream up to the time of the newest event
 * kept from the streams it names (so list a named stream first): the state right after that write.
 * Each stream is read from its start and stops at its bound, so a read costs the history before the
 * bound, and never more than `maxEvents` events: past that it is refused (`ERR_HISTORY_TOO_LONG`).
 * The events come in their types' newest shapes (ADR 0060), as the folds that read them expect.
 */
export async function eventsAsOf(
  reader: StreamReader,
  streamIds: readonly string[],
  asOf: AsOf,
  maxEvents: number,
  schemas: Pick<EventSchemaRegistry, 'upcast'> = eventSchemas,
): Promise<EventEnvelope[]> {
  const events: EventEnvelope[] = [];
  let tokenTime = Number.NEGATIVE_INFINITY;
  for (const streamId of streamIds) {
    const version = asOf.kind === 'token' ? asOf.positions.get(streamId) : undefined;
    const at = asOf.kind === 'time' ? asOf.at : tokenTime;
    for await (const event of reader.streamEvents(streamId)) {
      if (version !== undefined ? event.version > version : Date.parse(event.occurredAt) > at) break;
      if (events.length >= maxEvents) {
        throw new ApiError('ERR_HISTORY_TOO_LONG', `asOf: this state lies more than ${maxEvents} events into its history; ask for an earlier one`, {
          maxEvents,
        });
      }
      events.push(schemas.upcast(event));
      if (version !== undefined) tokenTime = Math.max(tokenTime, Date.parse(event.occurredAt));
    }
  }
  return events;
}
