// What plain CPU work costs on this machine at the moment of a run: the CPU ms of hashing a fixed
// 128 MiB with SHA-256 in this process, the best of three. Native code on purpose: a JS loop's cost
// depends on whether V8's optimising compiler (a background thread) got a core in time, and came out
// 211 or 1,064 ms for the same loop on one loaded machine. The shared VMs these benches run on have
// charged the same stack ×1.3–1.5 more CPU on one day than on another (session 10's closing note),
// which the store's raw insertOne rate did not show; two runs' CPU figures compare only where this does.
import { createHash } from 'node:crypto';

const CHUNK = Buffer.alloc(1 << 20, 7);
const CHUNKS = 128;

/** The CPU ms (user + system) of one hash of CHUNKS × 1 MiB. */
function hashOnce() {
  const before = process.cpuUsage();
  const hash = createHash('sha256');
  for (let i = 0; i < CHUNKS; i++) hash.update(CHUNK);
  hash.digest();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The best of three hashes, in CPU ms, and the line a bench prints for it. */
export function measureMachineSpeed() {
  const ms = Math.min(hashOnce(), hashOnce(), hashOnce());
  return { ms, line: `machine speed: SHA-256 of ${CHUNKS} MiB costs ${ms.toFixed(0)} ms of CPU (best of 3; lower is faster)` };
}
