import { pino } from 'pino';
import type { DestinationStream, Logger } from 'pino';
import { logLevelOf } from '@chat/contracts';
import { trace } from '@opentelemetry/api';
import { currentRequestId } from './requestContext.js';
import { tracingActive } from './tracing.js';

/**
 * Every line logged while a request is served carries its `requestId` (see `requestScope`) and, while
 * tracing, the `trace_id` and `span_id` of the span it was logged in, so a log line leads to its trace.
 */
export function createLogger(service: string, level: string = logLevelOf(process.env), destination?: DestinationStream): Logger {
  const options = {
    name: service,
    level,
    base: { service },
    mixin: () => {
      const requestId = currentRequestId();
      const fields = requestId === undefined ? {} : { requestId };
      const span = tracingActive() ? trace.getActiveSpan()?.spanContext() : undefined;
      return span ? { ...fields, trace_id: span.traceId, span_id: span.spanId } : fields;
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
