/**
 * The one percentile of every benchmark: nearest rank, the ⌈p/100 · n⌉-th smallest value of an
 * ascending array (p50 of [1, 2] is 1, p99 of 100 values the 99th); NaN for an empty array.
 */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
