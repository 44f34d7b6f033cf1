/** One condition a process needs to do its work; false or a throw means "not now". */
export type ReadinessCheck = () => boolean | Promise<boolean>;

export type CheckState = 'ok' | 'failing' | 'timeout';

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckState>;
}

/** How long one check may take: a probe that hangs is as unready as one that fails. */
export const CHECK_TIMEOUT_MS = 1_000;

/**
 * The readiness checks of a process, registered by whatever owns the resource (the event pipeline
 * its store, producer and consumer). `/readyz` answers 200 only while every check passes.
 */
export class Probes {
  private readonly checks = new Map<string, ReadinessCheck>();

  add(name: string, check: ReadinessCheck): void {
    if (this.checks.has(name)) throw new Error(`readiness check ${name} is registered twice`);
    this.checks.set(name, check);
  }

  async readiness(timeoutMs = CHECK_TIMEOUT_MS): Promise<Readiness> {
    const entries = await Promise.all([...this.checks].map(async ([name, check]) => [name, await runCheck(check, timeoutMs)] as const));
    const checks = Object.fromEntries(entries);
    return { ready: entries.every(([, state]) => state === 'ok'), checks };
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
