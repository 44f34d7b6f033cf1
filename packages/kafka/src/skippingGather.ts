import { PATIENT_GATHER, TOLERANT_GATHER } from './consumer.js';
import type { ConsumerGather } from './consumer.js';
import type { RecordSelector } from './recordSelector.js';

/** How long a group must have kept nothing before it gathers patiently (ADR 0095). */
export const SKIPPING_SPELL_MS = 5_000;

export interface SkippingGatherOptions {
  /** The gather while the group keeps records (its readers' latency goal holds). */
  keeping?: ConsumerGather;
  /** The gather once it has kept nothing for `spellMs`. */
  skipping?: ConsumerGather;
  spellMs?: number;
  now?: () => number;
}

/**
 * A selector and a gather for a group that skips most records from their headers (ADR 0095): while its
 * selector keeps records (an app with a webhook or a provider sends), the group gathers tolerantly, as
 * its delivery goal allows; once it has kept none for a spell (no app with anything configured is
 * sending), it gathers patiently and fetches about twice a second whatever the rate. The first kept
 * record after such a spell waits out at most the patient fetch in flight; the next fetch is tolerant.
 */
export function skippingGather(
  select: RecordSelector,
  options: SkippingGatherOptions = {},
): { select: RecordSelector; gather: () => ConsumerGather } {
  const now = options.now ?? Date.now;
  const spellMs = options.spellMs ?? SKIPPING_SPELL_MS;
  const keeping = options.keeping ?? TOLERANT_GATHER;
  const skipping = options.skipping ?? PATIENT_GATHER;
  // A new process has not seen what its group keeps yet: it starts as if it kept records.
  let keptAt = now();
  const noted = (kept: readonly boolean[]): readonly boolean[] => {
    if (kept.includes(true)) keptAt = now();
    return kept;
  };
  return {
    select: (records) => {
      const kept = select(records);
      return Array.isArray(kept) ? noted(kept as readonly boolean[]) : (kept as Promise<readonly boolean[]>).then(noted);
    },
    gather: () => (now() - keptAt >= spellMs ? skipping : keeping),
  };
}
