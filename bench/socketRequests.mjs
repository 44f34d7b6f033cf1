// Requests each local process has sent to a port so far, from the kernel's socket statistics: the data
// segments out of its connections to that port (`ss -ti`; on loopback a small request is one segment).
// Connections closed in between are not counted, so a difference is a lower bound; on a stack that
// keeps its connections (keep-alive HTTP, Kafka, the store) it is the request count. Shared by
// process-cost.mjs (Kafka requests per process) and send-path-cpu.mjs (those, and the gateway's look-ups).
import { execFileSync } from 'node:child_process';

/** Data segments sent to `port` so far, by the pid that owns each connection (empty when `ss` fails). */
export function requestsTo(port) {
  let text = '';
  try {
    text = execFileSync('ss', ['-tinpH', `dport = :${port}`], { encoding: 'utf8' });
  } catch {
    return new Map();
  }
  const sent = new Map();
  let pid;
  for (const line of text.split('\n')) {
    const owner = /pid=(\d+)/.exec(line);
    if (owner) pid = Number(owner[1]);
    const segs = /data_segs_out:(\d+)/.exec(line);
    if (segs && pid !== undefined) sent.set(pid, (sent.get(pid) ?? 0) + Number(segs[1]));
  }
  return sent;
}

/** What each pid sent between two `requestsTo` readings. */
export function requestsBetween(before, after) {
  return new Map([...after].map(([pid, count]) => [pid, count - (before.get(pid) ?? 0)]));
}
