// CPU time of local processes from /proc (Linux), and the processes a bench stack runs: the gateway,
// every service replica, and Kafka, FerretDB and Redis. Shared by the store's raw rates (store-raw.mjs:
// the store's CPU per operation) and the cost of a message (cost.mjs: CPU per message by process).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Linux reports process CPU times in USER_HZ, 100 on every common configuration.
const CLOCK_TICKS_PER_SECOND = 100;
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** CPU time (user + system, all threads) a process has used, in ms; NaN when it cannot be read. */
export function processCpuMs(pid) {
  if (pid === undefined) return NaN;
  try {
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th overall.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** The pid the devstack wrote for a process it spawned (`.infra/run/<name>.pid`), else undefined. */
export function pidFromFile(name) {
  const file = join(REPO_ROOT, '.infra', 'run', `${name}.pid`);
  if (!existsSync(file)) return undefined;
  const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
  return Number.isInteger(pid) && existsSync(`/proc/${pid}/stat`) ? pid : undefined;
}

const portOf = (url) => new URL(url.includes('://') ? url : `tcp://${url}`).port;

/**
 * The processes of a bench stack (bench/stack.mjs), by name: `gateway`, each service (`messages`, or
 * `messages-2` for a second replica), `ferretdb`, `kafka`, `redis`. A part the stack reused rather than
 * spawned is found by the pid file of whoever started it on that port; one that runs where /proc cannot
 * see it (a container, another host) has no pid and is left out, and said so in `missing`.
 *
 * @param {import('./stack.mjs').BenchStack} stack
 * @returns {{ processes: { name: string, pid: number }[], missing: string[] }}
 */
export function stackProcesses(stack) {
  const { infra, services } = stack;
  const candidates = [
    ['gateway', pidFromFile(`gateway-${portOf(services.gatewayUrl)}`)],
    ...services.instances.map((i) => [services.instances.some((o) => o.service === i.service && o.replica > 1) ? `${i.service}-${i.replica}` : i.service, i.pid()]),
    ['ferretdb', pidFromFile(`ferretdb-${portOf(infra.mongoUrl)}`)],
    ['kafka', pidFromFile(`kafka-${portOf(infra.kafkaBrokers.split(',')[0])}`)],
    ['redis', pidFromFile(`redis-${portOf(infra.redisUrl)}`)],
  ];
  return {
    processes: candidates.filter(([, pid]) => pid !== undefined).map(([name, pid]) => ({ name, pid })),
    missing: candidates.filter(([, pid]) => pid === undefined).map(([name]) => name),
  };
}

/**
 * The CPU ms each of `processes` has used so far; `since(earlier)` gives the ms used between two
 * snapshots (NaN for a process that exited in between).
 */
export function cpuSnapshot(processes) {
  const taken = new Map(processes.map(({ name, pid }) => [name, processCpuMs(pid)]));
  return {
    taken,
    /** @returns {Map<string, number>} */
    since(earlier) {
      return new Map([...taken].map(([name, ms]) => [name, ms - (earlier.taken.get(name) ?? NaN)]));
    },
  };
}

/**
 * The read and write system calls a process has made so far (`syscr`, `syscw` of /proc/<pid>/io; every
 * socket send to the store or the broker is one write), NaN each when it cannot be read.
 */
export function processSyscalls(pid) {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? NaN);
    return { reads: field('syscr'), writes: field('syscw') };
  } catch {
    return { reads: NaN, writes: NaN };
  }
}

/**
 * How often a process has gone to sleep waiting so far: the `voluntary_ctxt_switches` of all its threads
 * (/proc/<pid>/task/*\/status). Each is one wake-up to come (a timer, a socket, a thread handing work over);
 * unlike CPU time, the count does not move with the machine's other load. NaN when it cannot be read.
 */
export function processWakeups(pid) {
  try {
    let sum = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      sum += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
    return sum;
  } catch {
    return NaN;
  }
}
