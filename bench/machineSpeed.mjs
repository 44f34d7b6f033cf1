// What plain CPU work costs on this machine at the moment of a run: the CPU ms of a fixed integer loop
// in this process, the best of three. The shared VMs these benches run on have been seen to charge the
// same code about 3 × more CPU in one afternoon than in the morning (session 10's closing note), while
// the store's raw insertOne rate did not show it; two runs' CPU figures compare only where this line does.
const STEPS = 200_000_000;

/** The CPU ms (user + system) of one fixed loop; the sum is returned so that the loop cannot be dropped. */
function loopOnce() {
  const before = process.cpuUsage();
  let sum = 0;
  for (let i = 0; i < STEPS; i++) sum = (sum * 31 + i) | 0;
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, sum };
}

/** The best of three loops, in CPU ms, and the line a bench prints for it. */
export function measureMachineSpeed() {
  const runs = [loopOnce(), loopOnce(), loopOnce()];
  const ms = Math.min(...runs.map((run) => run.ms));
  return { ms, line: `machine speed: a fixed JS loop of ${STEPS.toExponential(0)} steps costs ${ms.toFixed(0)} ms of CPU (best of 3; lower is faster)` };
}
