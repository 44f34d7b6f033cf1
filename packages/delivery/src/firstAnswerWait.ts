/** Receivers remembered as slow at most; past it, the longest-marked is forgotten (and waited for once more). */
const SLOW_RECEIVERS_KEPT = 10_000;

/** A new delivery's first attempt: whom it goes to (`receiverOf`: an app's webhook or provider) and when it was answered. */
export interface FirstAnswer {
  receiver: string;
  answered: Promise<void>;
}

/**
 * The wait of a run of new deliveries for their first answers (ADR 0158). A consumer run of webhooks or
 * push notifications waits up to a window, so that what is answered within it is stored once as done
 * instead of stored pending and then updated; only then does the consumer take its next run. A receiver
 * that answers slower than the window would hold every run for the whole window, and with it every
 * other receiver's next deliveries — other apps' too, on the same partition. So a receiver that left a
 * wait unanswered, or answered slower than the window, is not waited for until one of its answers comes
 * within the window again: its deliveries are stored pending at once, and their answers are recorded
 * when they come, as a retry's are.
 */
export class FirstAnswerWait {
  /** Receivers not waited for, longest-marked first. */
  private readonly slow = new Map<string, true>();

  constructor(
    readonly windowMs: number,
    private readonly kept = SLOW_RECEIVERS_KEPT,
  ) {}

  /** A receiver answered an attempt (any attempt) after `latencyMs`. */
  answered(receiver: string, latencyMs: number): void {
    if (latencyMs <= this.windowMs) this.slow.delete(receiver);
    else this.markSlow(receiver);
  }

  /** Whether a run waits for this receiver's first answers. */
  waitsFor(receiver: string): boolean {
    return !this.slow.has(receiver);
  }

  /**
   * Resolves when every first answer a run waits for has come, or when the window is over; a receiver
   * still unanswered then is not waited for again until it answers within the window.
   */
  async wait(firstAnswers: readonly FirstAnswer[]): Promise<void> {
    const awaited = firstAnswers.filter((first) => this.waitsFor(first.receiver));
    if (awaited.length === 0 || this.windowMs <= 0) return;
    const came = new Set<FirstAnswer>();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(awaited.map((first) => first.answered.then(() => void came.add(first)))),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, this.windowMs))),
    ]);
    clearTimeout(timer);
    for (const first of awaited) if (!came.has(first)) this.markSlow(first.receiver);
  }

  private markSlow(receiver: string): void {
    this.slow.delete(receiver);
    this.slow.set(receiver, true);
    if (this.slow.size > this.kept) this.slow.delete(this.slow.keys().next().value!);
  }
}
