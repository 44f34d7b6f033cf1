import { SpanKind, SpanStatusCode, context, isSpanContextValid, trace } from '@opentelemetry/api';
import type { Context, Link, Span } from '@opentelemetry/api';
import type { Commit } from './store.js';

/**
 * Spans of the write path (ADR 0032). Only the OpenTelemetry API is used here: without an SDK
 * registered (tracing off) every call is the API's no-op, and no context is kept for the events.
 */
const tracer = trace.getTracer('@chat/eventsourcing');

/** A command's span and the context its events carry to Kafka (absent when nothing is traced). */
export interface CommandTrace {
  span: Span;
  /** The command span's context, for its events' Kafka headers; undefined when not traced. */
  origin: Context | undefined;
}

/** Starts a command's span in the caller's context (the request span, when it has one). */
export function startCommandSpan(streamId: string): CommandTrace {
  const parent = context.active();
  const span = tracer.startSpan('command', { kind: SpanKind.INTERNAL, attributes: { 'chat.stream.id': streamId } }, parent);
  // A valid context, recording or not: an unsampled request's events carry "not sampled" on too.
  const origin = isSpanContextValid(span.spanContext()) ? trace.setSpan(parent, span) : undefined;
  return { span, origin };
}

/**
 * Ends a command's span when its outcome settles. A span that records nothing (tracing off) has
 * nothing to end, so no reactions are attached to every command then (ADR 0119).
 */
export function endCommandSpanWhenSettled(traced: CommandTrace, outcome: Promise<{ events: readonly unknown[] }>): void {
  if (!traced.span.isRecording()) return;
  outcome.then(
    (result) => endCommandSpan(traced, result.events.length),
    (error: unknown) => endCommandSpan(traced, 0, error),
  );
}

/** Ends a command's span with its outcome. */
function endCommandSpan(traced: CommandTrace, events: number, error?: unknown): void {
  const { span } = traced;
  if (!span.isRecording()) return span.end();
  span.setAttribute('chat.events', events);
  if (error !== undefined) failSpan(span, error);
  span.end();
}

function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** The distinct trace contexts of a group's events, in order of first appearance. */
function distinctOrigins(commits: readonly Commit[]): Context[] {
  const seen = new Set<Context>();
  for (const commit of commits) for (const origin of commit.origins ?? []) if (origin) seen.add(origin);
  return [...seen];
}

/**
 * Runs a grouped append inside one span: a child of the first command it carries, linked to every
 * other, so each request's trace reaches the store (as parent or by a link) while the shared insert
 * is recorded once. No command traced: no span.
 */
export async function withAppendSpan<T>(commits: readonly Commit[], append: () => Promise<T>): Promise<T> {
  const origins = distinctOrigins(commits);
  const parent = origins[0];
  if (!parent) return append();
  const links: Link[] = origins.slice(1).map((origin) => ({ context: trace.getSpanContext(origin)! }));
  const span = tracer.startSpan(
    'append',
    {
      kind: SpanKind.CLIENT,
      links,
      attributes: { 'db.operation.name': 'appendBatch', 'chat.commits': commits.length, 'chat.commands.traced': origins.length },
    },
    parent,
  );
  try {
    return await append();
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}
