import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, consistencyHeaders, decodeConsistencyToken, encodeConsistencyToken } from '@chat/contracts';
import type { NextFunction, Request, Response } from 'express';
import type { RequestHeaders } from './actor.js';

/** Per request: the highest version of each stream its commands produced. */
const produced = new AsyncLocalStorage<Map<string, number>>();

/** How long a read carrying a token waits for the read models before it answers as stale. */
export const CONSISTENCY_WAIT_MS = 2_000;
const POLL_MS = 25;

/**
 * Runs each request in a scope that collects what its commands produce, and answers it as the
 * `x-consistency-token` header of the response (set when the headers are written, after the work).
 */
export function consistencyTokens(_req: Request, res: Response, next: NextFunction): void {
  const positions = new Map<string, number>();
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  res.writeHead = ((...args: unknown[]) => {
    if (positions.size > 0 && !res.headersSent) res.setHeader(consistencyHeaders.token, encodeConsistencyToken(positions));
    return writeHead(...args);
  }) as typeof res.writeHead;
  produced.run(positions, () => next());
}

/** `consistencyTokens` for a request answered before express: `work` runs collecting into `positions`. */
export function collectingPositions<T>(positions: Map<string, number>, work: () => T): T {
  return produced.run(positions, work);
}

/** Called by the command runner, in the caller's context, with the events a command appended. */
export function recordProducedPositions(events: ReadonlyArray<{ streamId: string; version: number }>): void {
  const positions = produced.getStore();
  if (!positions) return;
  for (const { streamId, version } of events) positions.set(streamId, Math.max(positions.get(streamId) ?? 0, version));
}

/** The positions a read asks for (its `x-consistency-token`); null without one; a 400 for a token we never issued. */
export function requestedPositions(req: RequestHeaders): Map<string, number> | null {
  const header = req.headers[consistencyHeaders.token];
  if (header === undefined) return null;
  const positions = typeof header === 'string' ? decodeConsistencyToken(header) : null;
  if (!positions) throw new ApiError('ERR_BAD_REQUEST', `${consistencyHeaders.token} is not a token this API issued.`);
  return positions;
}

/**
 * Waits until `reached` holds (the read models have applied what the token names), polling, for at
 * most CONSISTENCY_WAIT_MS; past that the answer goes out marked `x-consistency-stale: true`.
 */
export async function awaitConsistency(res: Response, reached: () => Promise<boolean>, waitMs = CONSISTENCY_WAIT_MS): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (!(await reached())) {
    if (Date.now() >= deadline) {
      res.setHeader(consistencyHeaders.stale, 'true');
      return;
    }
    await sleep(POLL_MS);
  }
}
