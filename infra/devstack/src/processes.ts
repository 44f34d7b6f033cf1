import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** A service process spawned by this module; it is stopped only through this handle. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  /** Resolves once the process has exited (at once if it already has). */
  readonly exited: Promise<void>;
  hasExited(): boolean;
  /** Sends a signal without waiting (SIGKILL: a crash, as a fault test wants it). */
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

const live = new Set<ManagedProcess>();
let exitHookInstalled = false;

/**
 * Spawns a service with its output appended to logFile and records its pid in pidFile.
 * Children are detached (own process group) so that a terminal's Ctrl-C reaches only us and we stop
 * them in order; the cost is that we must stop them ourselves, hence the exit hook below.
 */
export async function spawnManaged(spec: {
  name: string;
  file: string;
  args: string[];
  cwd: string;
  /** Defaults to this process's environment. */
  env?: NodeJS.ProcessEnv;
  logFile: string;
  pidFile: string;
  stopGraceMs: number;
  onUnexpectedExit?: (detail: string) => void;
}): Promise<ManagedProcess> {
  installExitHook();
  const fd = openSync(spec.logFile, 'a');
  writeSync(fd, `\n--- ${new Date().toISOString()} ${spec.file} ${spec.args.join(' ')}\n`);
  const child = spawn(spec.file, spec.args, {
    cwd: spec.cwd,
    env: spec.env ?? process.env,
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  closeSync(fd);

  if (child.pid === undefined) {
    const err = await new Promise<Error>((resolve) => child.once('error', resolve));
    throw new Error(`${spec.name}: cannot run ${spec.file}: ${err.message}`);
  }
  const pid = child.pid;
  // Our event loop must not wait for a service that is meant to run until stop().
  child.unref();
  writeFileSync(spec.pidFile, `${pid}\n`);

  let exited = false;
  let stopping = false;
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      live.delete(handle);
      rmSync(spec.pidFile, { force: true });
      if (!stopping) spec.onUnexpectedExit?.(signal ? `killed by ${signal}` : `exit code ${code}`);
      resolve();
    });
  });

  let stopPromise: Promise<void> | undefined;
  const handle = {
    name: spec.name,
    pid,
    exited: exitedPromise,
    hasExited: () => exited,
    signal(signal: NodeJS.Signals): void {
      stopping = true;
      if (!exited) trySignal(pid, signal);
      rmSync(spec.pidFile, { force: true });
    },
    stop(): Promise<void> {
      stopPromise ??= (async () => {
        stopping = true;
        if (!exited) {
          trySignal(pid, 'SIGTERM');
          if (!(await settlesWithin(exitedPromise, spec.stopGraceMs))) {
            trySignal(pid, 'SIGKILL');
            await settlesWithin(exitedPromise, 5_000);
          }
        }
        rmSync(spec.pidFile, { force: true });
      })();
      return stopPromise;
    },
  };
  live.add(handle);
  return handle;
}

/** Stops every process this module started in this Node process that is still running. */
export async function stopAllStarted(): Promise<void> {
  await Promise.all([...live].map((p) => p.stop()));
}

/**
 * A pid file whose process is alive but did not answer the health check belongs to a hung or
 * half-started earlier run: kill it so the port is free. The command line must match, because
 * after a reboot the pid may belong to anything.
 */
export async function killStale(pidFile: string, commandLineMarker: string, graceMs: number): Promise<boolean> {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
  } catch {
    return false;
  }
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 1 || !isAlive(pid)) return false;
  let commandLine: string;
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return false;
  }
  if (!commandLine.includes(commandLineMarker)) return false;
  trySignal(pid, 'SIGTERM');
  trySignal(pid, 'SIGCONT'); // a stopped process acts on SIGTERM only once it runs again
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid)) trySignal(pid, 'SIGKILL');
  while (isAlive(pid) && Date.now() < deadline + 5_000) await sleep(50);
  return true;
}

const shutdownHooks = new Set<() => Promise<void>>();
let shutdownListenersInstalled = false;
let shuttingDown: Promise<void> | undefined;

/**
 * Runs stop (by default: stop everything this module started) on SIGINT, SIGTERM, SIGHUP, when the
 * event loop drains, and on an uncaught exception or unhandled rejection, then exits. Calling it
 * again adds another hook; each hook runs once. A second Ctrl-C while stopping kills at once.
 * Returns a function that removes the hook.
 */
export function registerShutdown(stop: () => Promise<void> = stopAllStarted): () => void {
  shutdownHooks.add(stop);
  if (!shutdownListenersInstalled) {
    shutdownListenersInstalled = true;
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
    process.on('beforeExit', () => void runShutdown());
    process.on('uncaughtException', onFatal);
    process.on('unhandledRejection', onFatal);
  }
  return () => {
    shutdownHooks.delete(stop);
  };
}

function runShutdown(): Promise<void> {
  shuttingDown ??= (async () => {
    const results = await Promise.allSettled([...shutdownHooks].map((hook) => hook()));
    for (const result of results) {
      if (result.status === 'rejected') console.error('devstack: shutdown hook failed:', result.reason);
    }
    await stopAllStarted();
  })();
  return shuttingDown;
}

function onSignal(signal: NodeJS.Signals): void {
  const code = 128 + (osConstants.signals[signal] ?? 0);
  if (shuttingDown) {
    for (const p of live) p.signal('SIGKILL');
    process.exit(code);
  }
  void runShutdown().finally(() => process.exit(code));
}

function onFatal(error: unknown): void {
  console.error(error);
  void runShutdown().finally(() => process.exit(1));
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // process.exit() skips every async cleanup; detached children would outlive us without this.
  process.on('exit', () => {
    for (const p of live) p.signal('SIGTERM');
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function trySignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** The timer stays referenced so a stop() in progress keeps the process alive until it is done. */
async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
