/** One condition a process needs to do its work; false or a throw means "not now". */
export type ReadinessCheck = () => boolean | Promise<boolean>;

export type CheckState = 'ok' | 'failing' | 'timeout';

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckState>;
  /** Failing checks the process serves without (registered with `gatesReadiness: false`), when any. */
  degraded?: string[];
}

export interface CheckOptions {
  /**
   * False for a resource whose loss degrades the process but must not take it out of rotation:
   * reported in /readyz, never a reason for 503 (ADR 0040: management without Redis still answers
   * the gateway's key look-ups). Default true.
   */
  gatesReadiness?: boolean;
}

/** How long one check may take: a probe that hangs is as unready as one that fails. */
export const CHECK_TIMEOUT_MS = 1_000;

/**
 * The readiness checks of a process, registered by whatever owns the resource (the event pipeline
 * its store, producer and consumer). `/readyz` answers 200 only while every check passes.
 */
export class Probes {
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly informational = new Set<string>();

  add(name: string, check: ReadinessCheck, options: CheckOptions = {}): void {
    if (this.checks.has(name)) throw new Error(`readiness check ${name} is registered twice`);
    this.checks.set(name, check);
    if (options.gatesReadiness === false) this.informational.add(name);
  }

  async readiness(timeoutMs = CHECK_TIMEOUT_MS): Promise<Readiness> {
    const entries = await Promise.all([...this.checks].map(async ([name, check]) => [name, await runCheck(check, timeoutMs)] as const));
    const checks = Object.fromEntries(entries);
    const failing = entries.filter(([, state]) => state !== 'ok').map(([name]) => name);
    const degraded = failing.filter((name) => this.informational.has(name));
    return { ready: degraded.length === failing.length, checks, ...(degraded.length > 0 ? { degraded } : {}) };
  }
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = Promise.resolve()
      .then(check)
      .then((ok): CheckState => (ok ? 'ok' : 'failing'), (): CheckState => 'failing');
    return await Promise.race([outcome, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
