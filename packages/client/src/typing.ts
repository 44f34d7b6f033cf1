export interface TypingOptions {
  /** At most one `typing_started` per receiver in this many ms (default 5 000). */
  throttleMs?: number;
  /** `typing_ended` after this many ms without a keystroke (default 3 000). */
  idleMs?: number;
}

export interface TypingTarget {
  receiver: string;
  receiverType: 'user' | 'group';
}

type TypingFrame = { type: 'typing_started' | 'typing_ended' } & TypingTarget;

/**
 * Turns keystrokes into typing frames: the first keystroke to a receiver sends `typing_started`, later
 * ones within `throttleMs` send nothing (the server fans each frame out to a whole group), and
 * `idleMs` without one, or `stop`, sends `typing_ended`.
 */
export class TypingThrottle {
  readonly #throttleMs: number;
  readonly #idleMs: number;
  readonly #active = new Map<string, { startedAt: number; idle: ReturnType<typeof setTimeout> }>();

  constructor(
    private readonly send: (frame: TypingFrame) => void,
    options: TypingOptions = {},
  ) {
    this.#throttleMs = options.throttleMs ?? 5_000;
    this.#idleMs = options.idleMs ?? 3_000;
  }

  keystroke(target: TypingTarget): void {
    const key = keyOf(target);
    const now = Date.now();
    const current = this.#active.get(key);
    if (current) clearTimeout(current.idle);
    const fresh = !current || now - current.startedAt >= this.#throttleMs;
    if (fresh) this.send({ type: 'typing_started', ...target });
    this.#active.set(key, { startedAt: fresh ? now : current.startedAt, idle: setTimeout(() => this.stop(target), this.#idleMs) });
  }

  stop(target: TypingTarget): void {
    const key = keyOf(target);
    const current = this.#active.get(key);
    if (!current) return;
    clearTimeout(current.idle);
    this.#active.delete(key);
    this.send({ type: 'typing_ended', ...target });
  }

  /** Forgets every receiver without sending (the connection is gone). */
  clear(): void {
    for (const { idle } of this.#active.values()) clearTimeout(idle);
    this.#active.clear();
  }
}

const keyOf = (target: TypingTarget): string => `${target.receiverType}:${target.receiver}`;
