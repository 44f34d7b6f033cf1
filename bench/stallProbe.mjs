// node --import bench/stallProbe.mjs — loaded into every service by bench/stall-timeline.mjs through
// SERVICE_NODE_ARGS (ADR 0155): appends to $STALL_PROBE_DIR/<service>-<pid>.jsonl one line per event-loop
// stall (a 10 ms interval timer that fired ≥ STALL_PROBE_MS late, default 30) and per GC pause of ≥ 5 ms,
// each stamped with the wall clock in ms, so bench/stall-timeline.mjs can line them up with slow sends.
// Measuring only: the timer costs each process a wake-up every 10 ms.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const dir = process.env.STALL_PROBE_DIR;
if (dir) {
  const threshold = Number(process.env.STALL_PROBE_MS ?? 30);
  const service = /services\/([^/]+)\//.exec(process.argv[1] ?? '')?.[1] ?? (/gateway/.test(process.argv[1] ?? '') ? 'gateway' : 'node');
  const file = join(dir, `${service}-${process.pid}.jsonl`);
  const write = (record) => appendFileSync(file, `${JSON.stringify({ service, pid: process.pid, ...record })}\n`);
  const at = (mark) => performance.timeOrigin + mark;
  let expected = performance.now() + 10;
  setInterval(() => {
    const now = performance.now();
    const late = now - expected;
    if (late >= threshold) write({ kind: 'loop', at: at(expected), ms: Math.round(late) });
    expected = now + 10;
  }, 10).unref();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration >= 5) write({ kind: 'gc', at: at(entry.startTime), ms: Math.round(entry.duration), gc: entry.detail?.kind });
    }
  }).observe({ entryTypes: ['gc'] });
}
