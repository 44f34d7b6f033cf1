import { ApiError } from '@chat/contracts';
import express from 'express';
import type { ErrorRequestHandler, Express, RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import { requestIdOf } from './actor.js';
import { consistencyTokens } from './consistency.js';
import { requestMetrics } from './metrics.js';
import { requestScope } from './requestContext.js';
import { traceRequests } from './tracing.js';

export interface ServiceAppOptions {
  logger: Logger;
  routers: readonly Router[];
  /** Largest JSON body accepted; CometChat's own limits are 10 KB (users) and 64 KB (messages). */
  bodyLimit?: string;
  /** Larger limits for some paths (data import takes 50 records at once); parsed before the default. */
  bodyLimits?: Readonly<Record<string, string>>;
  health?: () => Promise<Record<string, unknown>>;
}

interface BodyParserError {
  type?: string;
  status?: number;
}

function bodyParserError(error: unknown): BodyParserError | null {
  if (typeof error !== 'object' || error === null || !('type' in error)) return null;
  return error as BodyParserError;
}

/**
 * Driver errors that mean the store or the broker cannot be reached right now (not that the request
 * is wrong), and a look-up another service did not answer (`UsersLookups`): the client gets a 503 to
 * retry, not a 500. Matched by name so this package needs neither driver.
 */
const UNREACHABLE = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoPoolClearedError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'KafkaJSConnectionError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'UsersServiceUnavailableError',
]);

const SOCKET_LOST = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT']);

export function isUnreachableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (UNREACHABLE.has(error.name) || UNREACHABLE.has(error.constructor.name)) return true;
  // A socket the store closed under a command in flight surfaces as a plain system error.
  if (SOCKET_LOST.has(String((error as { code?: unknown }).code))) return true;
  // A bulk write cut off by a lost connection: the driver names it a bulk write error, with no write errors.
  return error.name === 'MongoBulkWriteError' && !hasWriteErrors(error);
}

function hasWriteErrors(error: Error): boolean {
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  return Array.isArray(writeErrors) ? writeErrors.length > 0 : writeErrors !== undefined && writeErrors !== null;
}

/**
 * The CometChat error a thrown value answers as (logged when it is not the client's mistake): the
 * only place errors become HTTP, for express (`errorMiddleware`) and the routes answered before it.
 */
export function apiErrorOf(error: unknown, logger: Logger, where: { requestId: string; path: string }): ApiError {
  const parserError = bodyParserError(error);
  if (error instanceof ApiError) return error;
  // express decodes path parameters; a segment that is not valid percent-encoding is the client's mistake.
  if (error instanceof URIError) return new ApiError('ERR_BAD_REQUEST', 'The path is not valid percent-encoding.');
  if (parserError?.type === 'entity.parse.failed') return new ApiError('ERR_BAD_REQUEST', 'The request body is not valid JSON.');
  if (parserError?.type === 'entity.too.large') return new ApiError('ERR_PAYLOAD_TOO_LARGE', 'The request body is larger than this operation accepts.');
  if (parserError && parserError.status !== undefined && parserError.status < 500) return new ApiError('ERR_BAD_REQUEST', 'The request body could not be read.');
  if (isUnreachableError(error)) {
    logger.warn({ err: error, ...where }, 'store or broker unreachable');
    return new ApiError('ERR_SERVICE_UNAVAILABLE', 'A part of the platform is unreachable; retry the request shortly.', { retryAfterSeconds: 1 });
  }
  logger.error({ err: error, ...where }, 'unhandled error');
  return new ApiError('ERR_EXCEPTION', 'The server failed to process the request.');
}

/** Maps every thrown value to the CometChat error shape (`apiErrorOf`). */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    void next;
    if (res.headersSent) {
      res.end();
      return;
    }
    const apiError = apiErrorOf(error, logger, { requestId: requestIdOf(req), path: req.path });
    const retryAfter = apiError.details?.['retryAfterSeconds'];
    if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
    res.status(apiError.status).json(apiError.toBody());
  };
}

export const notFound: RequestHandler = (req) => {
  throw new ApiError('ERR_API_NOT_FOUND', `No operation ${req.method} ${req.path}.`);
};

/** The request histogram's `service` label: the logger's name (createLogger names it after the service). */
export function serviceLabel(logger: Logger): string {
  return String(logger.bindings()['service'] ?? logger.bindings()['name'] ?? 'service');
}

export function createServiceApp(options: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'extended');
  app.use(requestMetrics(serviceLabel(options.logger)));
  app.use(requestScope);
  app.use(traceRequests);
  app.get('/health', async (_req, res) => {
    res.json({ status: 'ok', ...(options.health ? await options.health() : {}) });
  });
  const json = (limit: string) => express.json({ limit, strict: true, type: ['application/json', '+json'] });
  // A body parsed by a path's own parser is not parsed again by the default one.
  for (const [path, limit] of Object.entries(options.bodyLimits ?? {})) app.use(path, json(limit));
  app.use(express.json({ limit: options.bodyLimit ?? '64kb', strict: true, type: ['application/json', '+json'] }));
  // Every write answers the stream versions it produced (read-your-writes across services and replicas).
  app.use(consistencyTokens);
  for (const router of options.routers) app.use(router);
  app.use(notFound);
  app.use(errorMiddleware(options.logger));
  return app;
}
