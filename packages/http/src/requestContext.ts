import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler } from 'express';
import { requestIdOf } from './actor.js';

/** What a request's log lines carry, wherever they are logged from. */
interface RequestScope {
  requestId: string;
}

const context = new AsyncLocalStorage<RequestScope>();

/**
 * Runs the rest of a request inside its context, so whatever logs while serving it (a use case, the
 * command runner, a store adapter) names the request without being handed its id.
 */
export const requestScope: RequestHandler = (req, _res, next) => {
  context.run({ requestId: requestIdOf(req) }, next);
};

/** `requestScope` for a request answered before express (`answeringHotRoutes`). */
export function inRequestScope<T>(requestId: string, work: () => T): T {
  return context.run({ requestId }, work);
}

/** The id of the request being served here, if any (the gateway's `x-request-id`). */
export function currentRequestId(): string | undefined {
  return context.getStore()?.requestId;
}
