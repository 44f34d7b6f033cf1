/** Nearest-rank percentile of an ascending array (see percentile.mjs); NaN for an empty array. */
export function percentile(sorted: readonly number[], p: number): number;
