/**
 * Splits items into consecutive slices of at most `size`, in order: the one way every package cuts a list
 * into commands or requests of a bounded size (store statements, inserts, role look-ups).
 */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  const slices: T[][] = [];
  for (let from = 0; from < items.length; from += size) slices.push(items.slice(from, from + size));
  return slices;
}
