import { ApiError } from '@chat/contracts';
import type { ErrorBody, ErrorCode } from '@chat/contracts';
import { z } from 'zod';

/** CometChat's documented limit of entities per data import request. */
export const MAX_IMPORT_RECORDS = 50;

/** The largest data import body: 50 records of up to ~64 KB messages each would be more; this bounds it. */
export const IMPORT_BODY_LIMIT = '2mb';

/** What a data import answers for one record: the stored resource, or why it was not imported. */
export type ImportOutcome = { success: true; data: unknown } | ({ success: false } & ErrorBody);

/** Import bodies are `{ "<property>": { "<record key>": record, ... } }`. */
const recordMap = z.record(z.string(), z.unknown());

/**
 * The records of an import request, keyed as the caller keyed them. A body that is not a map of
 * records, or holds more than CometChat's 50, is refused whole before anything is written.
 */
export function importRecords(body: unknown, property: string, formatCode: ErrorCode): [string, unknown][] {
  const container = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[property] : undefined;
  const parsed = recordMap.safeParse(container);
  if (!parsed.success || Array.isArray(container)) {
    throw new ApiError(formatCode, `${property}: must be an object of ${property} keyed by their ids.`);
  }
  const entries = Object.entries(parsed.data);
  if (entries.length === 0) throw new ApiError(formatCode, `${property}: must hold at least one record.`);
  if (entries.length > MAX_IMPORT_RECORDS) {
    throw new ApiError(
      'ERR_IMPORT_TOO_MANY_RECORDS',
      `${property}: at most ${MAX_IMPORT_RECORDS} records per request (limit: ${MAX_IMPORT_RECORDS} entities per data import request), got ${entries.length}.`,
      { limit: MAX_IMPORT_RECORDS, received: entries.length },
    );
  }
  return entries;
}

/** A refused record; anything but an `ApiError` is a fault of ours and fails the request. */
export function importFailure(error: unknown): ImportOutcome {
  if (!(error instanceof ApiError)) throw error;
  return { success: false, ...error.toBody() };
}

/**
 * An epoch-seconds timestamp the caller gives for a record: an integer, not in the future (a small
 * allowance for clock skew between the caller and us).
 */
export function pastEpochSeconds(nowSeconds: number, skewSeconds = 60) {
  return z
    .number()
    .int('must be an integer (epoch seconds)')
    .nonnegative()
    .max(nowSeconds + skewSeconds, 'must not be in the future');
}

export interface KeyedRecord<V> {
  key: string;
  value: V;
}

/**
 * Validates every record on its own: a refused record is answered, its neighbours go on. `validate`
 * throws an `ApiError` naming the problem (e.g. `parseWith`).
 */
export function validateRecords<V>(
  entries: readonly [string, unknown][],
  validate: (key: string, record: unknown) => V,
): { valid: KeyedRecord<V>[]; refused: Map<string, ImportOutcome> } {
  const valid: KeyedRecord<V>[] = [];
  const refused = new Map<string, ImportOutcome>();
  for (const [key, record] of entries) {
    try {
      valid.push({ key, value: validate(key, record) });
    } catch (error) {
      refused.set(key, importFailure(error));
    }
  }
  return { valid, refused };
}

/**
 * Runs every record's import at once, so the command runner groups their appends into one insert,
 * and answers per record. An error that is not the record's fault (the store is down) fails the
 * request: the caller reruns it, and what was stored is skipped as already imported.
 */
export async function settleEach<V>(
  records: readonly KeyedRecord<V>[],
  run: (record: KeyedRecord<V>) => Promise<unknown>,
): Promise<Map<string, ImportOutcome>> {
  const settled = await Promise.allSettled(records.map(run));
  const outcomes = new Map<string, ImportOutcome>();
  settled.forEach((result, index) => {
    const key = (records[index] as KeyedRecord<V>).key;
    outcomes.set(key, result.status === 'fulfilled' ? { success: true, data: result.value } : importFailure(result.reason));
  });
  return outcomes;
}

/** The per-record answer, in the order the caller sent the records. */
export function inCallerOrder(entries: readonly [string, unknown][], ...outcomes: ReadonlyMap<string, ImportOutcome>[]): Record<string, ImportOutcome> {
  const answer: Record<string, ImportOutcome> = {};
  for (const [key] of entries) {
    const outcome = outcomes.find((map) => map.has(key))?.get(key);
    if (outcome) answer[key] = outcome;
  }
  return answer;
}

/** What a use case says about one record: what was stored, or why it was refused. */
export type RecordResult = { ok: unknown } | { error: unknown };

/** Use-case results as the per-record answers of the API. */
export function outcomesOf(results: ReadonlyMap<string, RecordResult>): Map<string, ImportOutcome> {
  const outcomes = new Map<string, ImportOutcome>();
  for (const [key, result] of results) outcomes.set(key, 'ok' in result ? { success: true, data: result.ok } : importFailure(result.error));
  return outcomes;
}
