// node bench/recently-used.mjs — what a use of a cache entry costs (ADR 0163): `RecentlyUsed` as it is, beside an
// exact LRU that moves every used entry to the end of its `Map` (a delete and a set: what `RecentlyUsed` did before ADR 0163),
// in the same process. Two figures each, for caches of BENCH_CAPACITIES (1000,10000,50000) entries:
//   old-generation bytes per use of a hot key — the large-object space's growth over 200,000 writes of 100 hot
//     keys into a full cache (a `Map`'s table rebuilt after a run of deletes is allocated there once it is large);
//   ns per operation — 3,000,000 operations on a full cache: 70 % gets of 500 hot keys, 30 % sets over 20,000 keys.
import v8 from 'node:v8';
import { RecentlyUsed } from '../packages/eventsourcing/dist/recentlyUsed.js';

const CAPACITIES = (process.env.BENCH_CAPACITIES ?? '1000,10000,50000').split(',').map(Number);

/** The baseline: an exact LRU, every use moved to the end of the map; evicting by one kept iterator (ADR 0114) as ours does. */
class MoveEveryUse {
  constructor(capacity) {
    this.capacity = capacity;
    this.map = new Map();
    this.eviction = this.map.keys();
  }
  get(key) {
    if (!this.map.has(key)) return undefined;
    const value = this.map.get(key);
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }
  set(key, value) {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size <= this.capacity) return;
    let next = this.eviction.next();
    if (next.done) {
      this.eviction = this.map.keys();
      next = this.eviction.next();
    }
    this.map.delete(next.value);
  }
}

const largeObjectBytes = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'large_object_space').space_used_size;

function oldGenerationBytesPerUse(cache, capacity) {
  for (let i = 0; i < capacity; i++) cache.set(`k${i}`, i);
  const uses = 200_000;
  let grown = 0;
  let last = largeObjectBytes();
  for (let i = 0; i < uses; i++) {
    cache.set(`k${i % 100}`, i);
    const now = largeObjectBytes();
    if (now > last) grown += now - last;
    last = now;
  }
  return grown / uses;
}

function nsPerOperation(cache, capacity) {
  const keys = Array.from({ length: 20_000 }, (_, i) => `k${i}`);
  for (let i = 0; i < capacity; i++) cache.set(keys[i % keys.length], i);
  const operations = 3_000_000;
  let sum = 0;
  const started = performance.now();
  for (let i = 0; i < operations; i++) {
    if (i % 10 < 7) sum += cache.get(keys[i % 500]) ?? 0;
    else cache.set(keys[(i * 7) % keys.length], i);
  }
  const ns = ((performance.now() - started) * 1e6) / operations;
  if (sum < 0) console.log(sum); // keeps the reads
  return ns;
}

console.log('capacity   old-generation bytes per use (RecentlyUsed | move every use)   ns per operation (RecentlyUsed | move every use | ratio)');
for (const capacity of CAPACITIES) {
  const bytes = [oldGenerationBytesPerUse(new RecentlyUsed(capacity), capacity), oldGenerationBytesPerUse(new MoveEveryUse(capacity), capacity)];
  // Alternated twice, each on a new cache: the second pass runs on warmed-up code.
  const ns = { ours: [], baseline: [] };
  for (let round = 0; round < 2; round++) {
    ns.ours.push(nsPerOperation(new RecentlyUsed(capacity), capacity));
    ns.baseline.push(nsPerOperation(new MoveEveryUse(capacity), capacity));
  }
  const [ours, baseline] = [Math.min(...ns.ours), Math.min(...ns.baseline)];
  console.log(
    `${String(capacity).padStart(8)}   ${bytes[0].toFixed(1).padStart(6)} | ${bytes[1].toFixed(1).padStart(6)}` +
      `${' '.repeat(41)}${ours.toFixed(0).padStart(5)} | ${baseline.toFixed(0).padStart(5)} | ×${(ours / baseline).toFixed(2)}`,
  );
}
