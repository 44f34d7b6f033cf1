/**
 * Statements per write command. FerretDB v1 holds one pooled SQLite connection per statement until
 * the command ends and never answers a command of 100 or more (issue 8); every grouped write of
 * ours stays at this size or below.
 */
export const MAX_STATEMENTS_PER_COMMAND = 50;

/** Splits a list into consecutive groups of at most `size` items. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  const groups: T[][] = [];
  for (let start = 0; start < items.length; start += size) groups.push(items.slice(start, start + size));
  return groups;
}
