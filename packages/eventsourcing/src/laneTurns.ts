import type { Context } from '@opentelemetry/api';
import type { CommandRequest, CommandResult } from './command.js';
import type { DomainEvent } from './decider.js';

// How the commands waiting in one stream's lane are cut into turns: what `CommandRunner` decides and
// appends together as one commit.

/** A command waiting in its stream's lane, with how to answer its caller. */
export interface Queued {
  request: CommandRequest<unknown, unknown, DomainEvent>;
  /** The command span's context, which its events carry to Kafka (undefined: not traced). */
  origin: Context | undefined;
  resolve(result: CommandResult<unknown>): void;
  reject(error: unknown): void;
  prepared: boolean;
}

/** Commands decided and appended together in one turn of a lane (one commit). */
const MAX_COMMANDS_PER_TURN = 100;

export function prepareOnce(queued: Queued): void {
  if (!queued.prepared) queued.request.prepare?.();
  queued.prepared = true;
}

/** How many of the waiting commands share the next turn: a run of batchable ones, or one other. */
export function turnLength(waiting: readonly Queued[]): number {
  let length = 1;
  if (waiting[0]?.request.batchable !== true) return length;
  while (length < Math.min(waiting.length, MAX_COMMANDS_PER_TURN) && waiting[length]?.request.batchable === true) length += 1;
  return length;
}
