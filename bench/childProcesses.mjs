// Stopping a benchmark's helper processes: SIGTERM, then SIGKILL if one is still there after a grace
// period, so a stop on exit, failure or Ctrl-C never leaves a process (or its port) behind.
import { once } from 'node:events';

const stopping = new WeakMap();

/** Stops `child` (once, however often it is asked); resolves when it has exited. */
export function terminate(child, graceMs = 5_000) {
  let stopped = stopping.get(child);
  if (!stopped) {
    stopped = (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    })();
    stopping.set(child, stopped);
  }
  return stopped;
}
