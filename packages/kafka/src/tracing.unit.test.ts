import { setTimeout as sleep } from 'node:timers/promises';
import type { EventEnvelope } from '@chat/contracts';
import { CommandRunner } from '@chat/eventsourcing';
import { InMemoryCommitStore } from '@chat/eventsourcing/testing';
import type { AppendBatch, Decider, DomainEvent, EventPublisher } from '@chat/eventsourcing';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { KafkaMessage } from 'kafkajs';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { injectTraceHeaders, startSendSpans, traceContextOf, withProcessSpans } from './tracing.js';

// The real SDK (W3C propagator, async-local context), keeping finished spans in memory to inspect.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const tracer = trace.getTracer('test');

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});
beforeEach(() => exporter.reset());

/** A request's context, as the command runner hands it to the producer. */
function requestContext(name: string): Context {
  return trace.setSpan(ROOT_CONTEXT, tracer.startSpan(name));
}
const spanIdOf = (origin: Context) => trace.getSpanContext(origin)!.spanId;
const traceIdOf = (origin: Context) => trace.getSpanContext(origin)!.traceId;

/** A message as kafkajs hands it to a consumer: header values are Buffers. */
function received(offset: number, headers: Record<string, string>): KafkaMessage {
  const buffers = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Buffer.from(value)]));
  return { key: null, value: Buffer.from('{}'), timestamp: '0', attributes: 0, offset: String(offset), headers: buffers };
}

/** What the producer writes for a produce request whose events come from these contexts. */
function produce(origins: readonly (Context | undefined)[]): Record<string, string>[] {
  const sent = startSendSpans('chat.messages.events', origins);
  const headers = origins.map((_, index) => {
    const written: Record<string, string> = { type: 'MessageSent' };
    const origin = sent.contexts[index];
    if (origin) injectTraceHeaders(origin, written);
    return written;
  });
  sent.spans.end();
  return headers;
}

describe('trace context across the Kafka hop', () => {
  it('gives each source context one producer span, its child, and writes that span into its events’ headers', () => {
    const a = requestContext('request a');
    const b = requestContext('request b');
    const headers = produce([a, a, undefined, b]);

    const sends = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.PRODUCER);
    expect(sends).toHaveLength(2);
    const sendOf = (origin: Context) => sends.find((span) => span.parentSpanContext?.spanId === spanIdOf(origin))!;
    expect(sendOf(a).attributes).toMatchObject({ 'messaging.destination.name': 'chat.messages.events', 'messaging.batch.message_count': 2 });
    expect(sendOf(b).attributes['messaging.batch.message_count']).toBe(1);
    expect(headers[0]!['traceparent']).toBe(`00-${traceIdOf(a)}-${sendOf(a).spanContext().spanId}-01`);
    expect(headers[1]!['traceparent']).toBe(headers[0]!['traceparent']);
    expect(headers[2]).toEqual({ type: 'MessageSent' });
    expect(headers[3]!['traceparent']).toBe(`00-${traceIdOf(b)}-${sendOf(b).spanContext().spanId}-01`);
  });

  it('reads the context back from headers as a consumer receives them, and nothing from headers without one', () => {
    const origin = requestContext('request');
    const [written] = produce([origin]);
    const extracted = trace.getSpanContext(traceContextOf(received(1, written!).headers)!);
    expect(extracted).toMatchObject({ traceId: traceIdOf(origin), isRemote: true });
    expect(traceContextOf(received(2, { type: 'MessageSent' }).headers)).toBeUndefined();
    expect(traceContextOf(undefined)).toBeUndefined();
    expect(traceContextOf(received(3, { traceparent: 'not a traceparent' }).headers)).toBeUndefined();
  });

  it('processes a run inside one consumer span per source context, each a child of its producer span', async () => {
    const a = requestContext('request a');
    const b = requestContext('request b');
    const headers = produce([a, b, a]);
    exporter.reset();
    const messages = [received(1, headers[0]!), received(2, headers[1]!), received(3, headers[2]!), received(4, { type: 'MessageSent' })];

    let activeInside: unknown = 'not run';
    await withProcessSpans({ topic: 'chat.messages.events', partition: 2, group: 'conversations.db' }, messages, async () => {
      activeInside = trace.getActiveSpan();
    });
    // Two traces in the run: the work belongs to neither.
    expect(activeInside).toBeUndefined();

    const processed = exporter.getFinishedSpans();
    expect(processed.map((span) => span.kind)).toEqual([SpanKind.CONSUMER, SpanKind.CONSUMER]);
    const fromA = processed.find((span) => span.spanContext().traceId === traceIdOf(a))!;
    expect(`00-${fromA.spanContext().traceId}-${fromA.parentSpanContext?.spanId}-01`).toBe(headers[0]!['traceparent']);
    expect(fromA.name).toBe('process chat.messages.events');
    expect(fromA.attributes).toMatchObject({
      'messaging.consumer.group.name': 'conversations.db',
      'messaging.destination.partition.id': '2',
      'messaging.batch.message_count': 4,
      'chat.messages.from_this_trace': 2,
    });
    expect(processed.find((span) => span.spanContext().traceId === traceIdOf(b))!.attributes['chat.messages.from_this_trace']).toBe(1);
  });

  it('works a run from one trace inside its span, and marks the span failed when the work fails', async () => {
    const headers = produce([requestContext('request')]);
    exporter.reset();
    const failure = new Error('store unreachable');
    let activeInside: string | undefined;
    await expect(
      withProcessSpans({ topic: 't', partition: 0 }, [received(1, headers[0]!)], async () => {
        activeInside = trace.getActiveSpan()?.spanContext().spanId;
        throw failure;
      }),
    ).rejects.toBe(failure);
    const [processed] = exporter.getFinishedSpans();
    expect(activeInside).toBe(processed!.spanContext().spanId);
    expect(processed!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'store unreachable' });
  });

  it('runs untraced work without any span', async () => {
    await withProcessSpans({ topic: 't', partition: 0 }, [received(1, { type: 'MessageSent' })], async () => undefined);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

type Noted = DomainEvent<'Noted', { n: number }>;
const notes: Decider<{ count: number }, { n: number }, Noted> = {
  initialState: () => ({ count: 0 }),
  decide: (command) => [{ type: 'Noted', data: { n: command.n } }, { type: 'Noted', data: { n: command.n + 1 } }],
  evolve: (state) => ({ count: state.count + 1 }),
  snapshotVersion: 1,
};

/** A store whose grouped appends take a while, so commits that arrive meanwhile share the next one. */
class SlowStore extends InMemoryCommitStore {
  override async appendBatch(batch: AppendBatch) {
    await sleep(20);
    return super.appendBatch(batch);
  }
}

function recordingPublisher() {
  const published: Array<{ event: EventEnvelope; origin: Context | undefined }> = [];
  const publisher: EventPublisher = {
    publish: async (events, origins) => void published.push(...events.map((event, index) => ({ event, origin: origins?.[index] }))),
  };
  return { published, publisher };
}

const metadata = () => ({ appId: 'app', actor: { appId: 'app', keyId: 'k', scope: 'fullAccess' as const }, correlationId: 'req', now: new Date() });

describe('trace context through the command runner (@chat/eventsourcing)', () => {
  it('starts each command’s span under its request, puts the grouped append under the first and links the others, and hands each event its command’s context', async () => {
    const { published, publisher } = recordingPublisher();
    const runner = new CommandRunner({ store: new SlowStore(), publisher, logger: { warn: () => undefined, info: () => undefined }, readModels: { apply: async () => undefined } });
    const requests = ['a', 'b', 'c'].map((name) => tracer.startSpan(`request ${name}`));
    // a goes alone; b and c arrive while its append is in flight and share the next one.
    await Promise.all(
      requests.map((request, index) =>
        context.with(trace.setSpan(ROOT_CONTEXT, request), () => runner.run({ decider: notes, streamId: `s${index}`, command: { n: index }, metadata: metadata() })),
      ),
    );
    await runner.stop();

    const spans = exporter.getFinishedSpans();
    const commands = requests.map((request) => spans.find((s) => s.name === 'command' && s.parentSpanContext?.spanId === request.spanContext().spanId)!);
    expect(commands.map((command) => command.attributes)).toEqual([
      { 'chat.stream.id': 's0', 'chat.events': 2 },
      { 'chat.stream.id': 's1', 'chat.events': 2 },
      { 'chat.stream.id': 's2', 'chat.events': 2 },
    ]);
    const appends = spans.filter((s) => s.name === 'append');
    expect(appends.map((s) => s.attributes['chat.commits'])).toEqual([1, 2]);
    expect(appends[0]!.parentSpanContext?.spanId).toBe(commands[0]!.spanContext().spanId);
    expect(appends[1]!.parentSpanContext?.spanId).toBe(commands[1]!.spanContext().spanId);
    expect(appends[1]!.links.map((link) => link.context.spanId)).toEqual([commands[2]!.spanContext().spanId]);

    // Every event reaches the publisher with the context of the command that decided it.
    expect(published).toHaveLength(6);
    for (const { event, origin } of published) {
      const command = commands[Number(event.streamId.slice(1))]!;
      expect(trace.getSpanContext(origin!)?.spanId).toBe(command.spanContext().spanId);
    }
  });
});
