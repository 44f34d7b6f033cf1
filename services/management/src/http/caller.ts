import { randomUUID } from 'node:crypto';
import { ApiError, internalHeaders } from '@chat/contracts';
import { requestIdOf } from '@chat/http';
import type { Request, RequestHandler } from 'express';

export function correlationIdOf(req: Request): string {
  const id = requestIdOf(req);
  return id === 'unknown' ? randomUUID() : id;
}

/** Management calls are authenticated by the gateway (key/secret), which marks them with this header. */
export const requireManagementCaller: RequestHandler = (req, _res, next) => {
  if (req.headers[internalHeaders.management] !== '1') {
    throw new ApiError('AUTH_ERR_EMPTY_AUTH_HEADER', 'Management APIs need the key and secret headers.');
  }
  next();
};
