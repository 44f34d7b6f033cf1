import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { topics } from '@chat/contracts';
import { startServices } from '@chat/devstack';
import type { RunningServices } from '@chat/devstack';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OtlpReceiver, SPAN_KIND } from './support/otlpReceiver.js';
import type { ReceivedSpan } from './support/otlpReceiver.js';
import { checkedFetch } from './support/responseContract.js';

/**
 * One send through the gateway makes one trace across four processes and the Kafka hop (ADR 0032).
 * Tracing is on only for a stack this file starts itself (on the `fresh` project's Kafka, FerretDB
 * and Redis), exporting OTLP/HTTP JSON to a receiver the test runs: the shared stacks stay untraced.
 */
describe('traces from the gateway through the messages service and Kafka into the conversations projection', () => {
  const receiver = new OtlpReceiver();
  let services: RunningServices;
  let chat: Record<string, string>;

  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await checkedFetch(`${services.gatewayUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  /** Waits until `found` finds what it looks for among the spans received (the exporters batch). */
  const eventually = async <T>(found: () => T | undefined, what: string): Promise<T> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const value = found();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`no ${what} among ${receiver.spans.length} spans received`);
      await sleep(200);
    }
  };

  beforeAll(async () => {
    await receiver.start();
    services = await startServices({
      kafkaBrokers: inject('kafkaBrokers'),
      mongoUrl: inject('mongoUrl'),
      redisUrl: inject('redisUrl'),
      ports: 'ephemeral',
      databaseSuffix: `tr${randomBytes(3).toString('hex')}`,
      extraEnv: {
        LOG_LEVEL: 'warn',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_always_on',
        // Exported within a fifth of a second, so the test waits little.
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
    });
    const created = await call('POST', '/apps', { key: services.managementKey, secret: services.managementSecret }, { name: 'traces', region: 'us' });
    expect(created.status).toBe(200);
    const keys = Object.values(created.body.data.apiKeys as Record<string, { apiKey: string; scope: string }>);
    chat = { appid: created.body.data.id, apikey: keys.find((k) => k.scope === 'fullAccess')!.apiKey };
    for (const uid of ['tracer-a', 'tracer-b']) expect((await call('POST', '/v3/users', chat, { uid, name: uid })).status).toBe(200);
  }, 300_000);

  afterAll(async () => {
    await services?.stop();
    await receiver.stop();
  }, 120_000);

  it('shares one trace id from the gateway span to the projection that applies the message', async () => {
    // A client's own context must not become the parent: the gateway starts the trace and links it.
    const clientTraceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    // This stack's new consumer groups start behind the shared topics' history, so the messages service
    // may not know the users yet: it answers 503 (retry), as it would a client. The last request is traced.
    let requestId = '';
    let sent: Awaited<ReturnType<typeof call>>;
    const sendDeadline = Date.now() + 60_000;
    for (;;) {
      requestId = `trace-${randomBytes(6).toString('hex')}`;
      sent = await call(
        'POST',
        '/v3/messages',
        { ...chat, onbehalfof: 'tracer-a', 'x-request-id': requestId, traceparent: `00-${clientTraceId}-${clientSpanId}-01` },
        { receiver: 'tracer-b', receiverType: 'user', category: 'message', type: 'text', data: { text: 'traced' } },
      );
      if (sent.status !== 503 || Date.now() > sendDeadline) break;
      await sleep(500);
    }
    expect(sent.status).toBe(200);

    const edge = await eventually(
      () => receiver.spans.find((span) => span.service === 'gateway' && span.attributes['chat.request_id'] === requestId),
      'gateway span for the send',
    );
    expect(edge).toMatchObject({ kind: SPAN_KIND.server, name: 'POST /v3/messages', parentSpanId: '' });
    expect(edge.traceId).not.toBe(clientTraceId);
    expect(edge.links).toEqual([{ traceId: clientTraceId, spanId: clientSpanId }]);
    const inTrace = (match: (span: ReceivedSpan) => boolean) => () => receiver.trace(edge.traceId).find(match);

    const service = await eventually(inTrace((s) => s.service === 'messages' && s.kind === SPAN_KIND.server), 'messages request span');
    expect(service).toMatchObject({ parentSpanId: edge.spanId, name: 'POST /v3/messages' });
    const command = await eventually(inTrace((s) => s.service === 'messages' && s.name === 'command'), 'command span');
    expect(command.parentSpanId).toBe(service.spanId);
    // The grouped append: a child of the first command it carries, linked to the others.
    await eventually(
      () =>
        receiver.spans.find(
          (s) => s.service === 'messages' && s.name === 'append' && (s.parentSpanId === command.spanId || s.links.some((l) => l.spanId === command.spanId)),
        ),
      'append span carrying the command',
    );
    const send = await eventually(inTrace((s) => s.service === 'messages' && s.kind === SPAN_KIND.producer), 'Kafka producer span');
    expect(send).toMatchObject({ parentSpanId: command.spanId, name: `send ${topics.messages}` });
    expect(send.attributes['messaging.destination.name']).toBe(topics.messages);

    const projected = await eventually(
      inTrace((s) => s.service === 'conversations' && s.kind === SPAN_KIND.consumer && s.attributes['messaging.destination.name'] === topics.messages),
      'conversations projection span',
    );
    // Extracted from the Kafka message's traceparent header: the producer span is its parent.
    expect(projected.parentSpanId).toBe(send.spanId);
    expect(String(projected.attributes['messaging.consumer.group.name'])).toContain('conversations');
    expect(Number(projected.attributes['chat.messages.from_this_trace'])).toBeGreaterThanOrEqual(1);
  });
});
