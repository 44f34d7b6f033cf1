import { pino } from 'pino';
import type { DestinationStream, Logger } from 'pino';
import { currentRequestId } from './requestContext.js';

/** Every line logged while a request is served carries its `requestId` (see `requestScope`). */
export function createLogger(service: string, level = process.env['LOG_LEVEL'] ?? 'info', destination?: DestinationStream): Logger {
  const options = {
    name: service,
    level,
    base: { service },
    mixin: () => {
      const requestId = currentRequestId();
      return requestId === undefined ? {} : { requestId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
