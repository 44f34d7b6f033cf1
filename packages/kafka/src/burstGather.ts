import type { EventType } from '@chat/contracts';
import { TOLERANT_GATHER } from './consumer.js';
import type { ConsumerGather } from './consumer.js';
import type { RecordHeaders, RecordSelector } from './recordSelector.js';

/** How long after a burst's last full batch, and after any other record, the burst rule holds (ADR 0117). */
export const BURST_SPELL_MS = 1_000;
/** A partition batch of at least this many records, every one of a burst type, is a burst (a data import sends 50 a request). */
export const BURST_MIN_RECORDS = 10;

export interface BurstGatherOptions {
  /** Event types that come in bulk and that nobody waits on record by record (a data import's `UserCreated`). */
  burstTypes: readonly EventType[];
  /** What the group keeps; default: every record. */
  select?: RecordSelector;
  /** The gather during a burst (default `TOLERANT_GATHER`). */
  gather?: ConsumerGather;
  minRecords?: number;
  spellMs?: number;
  now?: () => number;
}

/**
 * A gather for a group whose readers wait on its events one by one (the send path's facts, conversation
 * lists), except in a burst of creations (ADR 0117): a data import puts 50 users on the topic per
 * request, and a group that answers each fetch at the first record reads them ≈15 to a fetch, so every
 * user pays its share of a fetch, a decode pass, a handler run and a store command. While the latest
 * partition batches were bursts (`minRecords` or more records, every one of `burstTypes`) and no other
 * record came for `spellMs`, the next fetch gathers; any other record (a send, a membership change)
 * ends it at once, so those records are never held, and a lone creation after a quiet spell is answered
 * at the first record as before. A reader of a creation held by a gathered fetch waits for it as it
 * waits for the group's lag (the send path's and the import's patience).
 */
export function burstGather(options: BurstGatherOptions): { select: RecordSelector; gather: () => ConsumerGather | null } {
  const now = options.now ?? Date.now;
  const burstTypes = new Set<string>(options.burstTypes);
  const minRecords = options.minRecords ?? BURST_MIN_RECORDS;
  const spellMs = options.spellMs ?? BURST_SPELL_MS;
  const during = options.gather ?? TOLERANT_GATHER;
  let burstAt = Number.NEGATIVE_INFINITY;
  let otherAt = Number.NEGATIVE_INFINITY;
  const note = (records: readonly RecordHeaders[]): void => {
    const at = now();
    if (records.some((record) => record.type === undefined || !burstTypes.has(record.type))) otherAt = at;
    else if (records.length >= minRecords) burstAt = at;
  };
  return {
    select: (records) => {
      note(records);
      return options.select ? options.select(records) : records.map(() => true);
    },
    gather: () => {
      const at = now();
      return at - burstAt < spellMs && at - otherAt >= spellMs ? during : null;
    },
  };
}
