import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { Context, Span, TextMapGetter } from '@opentelemetry/api';
import type { IHeaders, KafkaMessage } from 'kafkajs';

/**
 * The Kafka hop of a trace (ADR 0032): the producer puts each event's context into its message's
 * headers (`traceparent`, W3C Trace Context, through the registered propagator), and the consuming
 * projection continues it. Only the OpenTelemetry API is used: without an SDK it is all no-ops.
 */
const tracer = trace.getTracer('@chat/kafka');

/** The W3C header that carries an event's trace context (the propagator also writes `tracestate` when set). */
export const TRACEPARENT_HEADER = 'traceparent';

/** kafkajs header values are Buffers once read back (strings when just written), possibly repeated. */
const headerGetter: TextMapGetter<IHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined ? undefined : first.toString();
  },
};

/** Writes a context into a message's headers (nothing when the context holds no span). */
export function injectTraceHeaders(origin: Context, headers: Record<string, string>): void {
  propagation.inject(origin, headers);
}

/** The trace context a message's headers carry, or undefined when they carry none. */
export function traceContextOf(headers: IHeaders | undefined): Context | undefined {
  // Most messages of an untraced deployment have no header at all: no extraction work for them.
  if (headers?.[TRACEPARENT_HEADER] === undefined) return undefined;
  const extracted = propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  return trace.getSpanContext(extracted) ? extracted : undefined;
}

function fail(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Spans that start together and end with one outcome. */
export interface SpanGroup {
  end(error?: unknown): void;
}

function spanGroup(spans: readonly Span[]): SpanGroup {
  return {
    end(error?: unknown) {
      for (const span of spans) {
        if (error !== undefined && span.isRecording()) fail(span, error);
        span.end();
      }
    },
  };
}

/**
 * One producer span per distinct source context of a produce request, a child of that context (the
 * command that appended the events); each event gets its span's context in its headers. Returns the
 * context to inject per event (same order) and the spans to end when the broker answered.
 */
export function startSendSpans(topic: string, origins: readonly (Context | undefined)[]): { contexts: (Context | undefined)[]; spans: SpanGroup } {
  const counts = new Map<Context, number>();
  for (const origin of origins) if (origin) counts.set(origin, (counts.get(origin) ?? 0) + 1);
  const sent = new Map<Context, { context: Context; span: Span }>();
  for (const [origin, count] of counts) {
    const span = tracer.startSpan(
      `send ${topic}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'send',
          'messaging.destination.name': topic,
          'messaging.batch.message_count': count,
        },
      },
      origin,
    );
    sent.set(origin, { context: trace.setSpan(origin, span), span });
  }
  return {
    contexts: origins.map((origin) => (origin ? sent.get(origin)?.context : undefined)),
    spans: spanGroup([...sent.values()].map((entry) => entry.span)),
  };
}

/** Where a run of messages is processed, for the process spans' attributes. */
export interface ProcessScope {
  topic: string;
  partition: number;
  /** The consumer group applying the run. */
  group?: string | undefined;
}

/**
 * Runs `work` (the projection of a run of messages) inside one consumer span per distinct source
 * context among the messages, each a child of that context: every request's trace shows when its
 * events reached this projection, and each span follows its own trace's sampling decision. Messages
 * without a context add no span; a run with none runs untraced.
 */
export async function withProcessSpans<T>(scope: ProcessScope, messages: readonly KafkaMessage[], work: () => Promise<T>): Promise<T> {
  const sources = new Map<string, { parent: Context; count: number }>();
  for (const message of messages) {
    const raw = message.headers?.[TRACEPARENT_HEADER];
    if (raw === undefined) continue;
    const key = raw.toString();
    const known = sources.get(key);
    if (known) known.count += 1;
    else {
      const parent = traceContextOf(message.headers);
      if (parent) sources.set(key, { parent, count: 1 });
    }
  }
  if (sources.size === 0) return work();
  const attributes = {
    'messaging.system': 'kafka',
    'messaging.operation.type': 'process',
    'messaging.destination.name': scope.topic,
    'messaging.destination.partition.id': String(scope.partition),
    ...(scope.group ? { 'messaging.consumer.group.name': scope.group } : {}),
    'messaging.batch.message_count': messages.length,
  };
  const started = [...sources.values()].map(({ parent, count }) => {
    const span = tracer.startSpan(
      `process ${scope.topic}`,
      { kind: SpanKind.CONSUMER, attributes: { ...attributes, 'chat.messages.from_this_trace': count } },
      parent,
    );
    return { span, inside: trace.setSpan(parent, span) };
  });
  const spans = spanGroup(started.map((entry) => entry.span));
  // A run from one trace is worked inside it, so what the handler does in turn (a command, a
  // delivery) continues that trace; a run from several belongs to none of them.
  const only = started.length === 1 ? started[0]!.inside : undefined;
  try {
    const result = only ? await context.with(only, work) : await work();
    spans.end();
    return result;
  } catch (error) {
    spans.end(error);
    throw error;
  }
}
