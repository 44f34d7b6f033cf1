import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { outageBackoffMs } from './batchProcessor.js';

/** What a readiness check and a metric read of a consumer. */
export interface ConsumerHealth {
  /**
   * `running`: consuming (or rebalancing, which kafkajs handles itself); `restarting`: it crashed and a
   * new one is being started; `stopped`: stop() was called, or it never started.
   */
  state: 'running' | 'restarting' | 'stopped';
  /** Crashes that needed a new consumer since the process started (for a metric). */
  restarts: number;
  /** The last crash, for a log or a readiness answer; null before any. */
  lastCrash: { at: string; error: string } | null;
}

/** Launches tried by `start()` before it fails. */
const START_ATTEMPTS = 5;

/** One run of the supervised thing; `crashed` is how it says it is dead and will not come back by itself. */
export type Launch = (crashed: (error: unknown) => void) => Promise<{ stop(): Promise<void> }>;

export interface SupervisorOptions {
  name: string;
  launch: Launch;
  logger: Logger;
  /** Pause before the n-th restart attempt in a row (n ≥ 1). */
  backoffMs?: (attempt: number) => number;
}

/**
 * Keeps a consumer running. kafkajs restarts a consumer by itself after a retriable error, but after a
 * non-retriable one (an error escaping a batch, a broker answer it does not retry) it disconnects and
 * stays down: the read models then silently stop moving. The supervisor starts a new one instead,
 * with backoff while that fails (the broker is away), and tells what it is doing through `health()`.
 */
export class Supervisor {
  private current: { stop(): Promise<void> } | null = null;
  private readonly status: ConsumerHealth = { state: 'stopped', restarts: 0, lastCrash: null };
  private stopped = false;
  private generation = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly backoffMs: (attempt: number) => number;

  constructor(private readonly options: SupervisorOptions) {
    this.backoffMs = options.backoffMs ?? outageBackoffMs;
  }

  health(): Readonly<ConsumerHealth> {
    return { ...this.status };
  }

  /**
   * The first start must succeed (the service does not take traffic without its consumer), but one
   * failed launch is not the end: on a loaded machine a consumer's first group join can crash
   * (kafkajs drops the group it was joining), and a process that exited for it would be a start-up
   * race. A few launches are tried, with the outage backoff between them, before the start fails.
   */
  async start(): Promise<void> {
    this.stopped = false;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.launch();
        return;
      } catch (error) {
        if (this.stopped || attempt >= START_ATTEMPTS) throw error;
        this.options.logger.warn({ err: error, consumer: this.options.name, attempt }, 'starting the consumer failed; trying again');
        await sleep(this.backoffMs(attempt));
        // Stopped while it waited: no consumer may start after stop().
        if (this.stopped) throw error;
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.status.state = 'stopped';
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const current = this.current;
    this.current = null;
    await current?.stop();
  }

  private async launch(): Promise<void> {
    const generation = ++this.generation;
    this.current = await this.options.launch((error) => this.onCrash(generation, error));
    // A crash reported while launch() was still settling already moved on to the next generation.
    if (generation === this.generation && !this.stopped) this.status.state = 'running';
  }

  private onCrash(generation: number, error: unknown): void {
    if (generation !== this.generation || this.stopped) return;
    this.status.state = 'restarting';
    this.status.restarts += 1;
    this.status.lastCrash = { at: new Date().toISOString(), error: error instanceof Error ? error.message : String(error) };
    this.options.logger.error({ err: error, consumer: this.options.name, restarts: this.status.restarts }, 'consumer crashed and will not restart by itself; starting a new one');
    const dead = this.current;
    this.current = null;
    void (dead?.stop() ?? Promise.resolve()).catch(() => undefined).finally(() => this.retry(1));
  }

  private retry(attempt: number): void {
    if (this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.stopped) return;
      this.launch().catch((error: unknown) => {
        this.options.logger.warn({ err: error, consumer: this.options.name, attempt }, 'starting a new consumer failed; retrying');
        this.retry(attempt + 1);
      });
    }, this.backoffMs(attempt));
  }
}
