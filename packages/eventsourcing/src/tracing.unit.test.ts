import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT_CONTEXT, context, propagation, trace } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import type { EventEnvelope } from '@chat/contracts';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CommandRunner } from './commandRunner.js';
import type { Decider, DomainEvent } from './decider.js';
import { InMemoryCommitStore } from './memoryStore.js';
import type { AppendBatch, EventPublisher } from './store.js';

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

describe('trace context through the command runner', () => {
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
