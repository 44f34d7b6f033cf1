import type { z } from 'zod';
import { jsonSchemaOf } from './jsonSchema.js';
import { eventEnvelopeSchema } from './envelope.js';
import { eventCatalog, retiredEventTypes, topicOf } from './events/registry.js';
import type { EventType } from './events/registry.js';
import { realtimeAsyncApi } from './realtimeAsyncApi.js';
import { topics } from './topics.js';

/**
 * W3C Trace Context of the request that produced the event (ADR 0032): present when the producing
 * process exports traces, absent otherwise (and on events republished after a crash).
 */
const traceHeaders = {
  traceparent: {
    type: 'string',
    pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
    description:
      'W3C Trace Context of the producer span that published the event (its trace starts at the gateway request that caused it). ' +
      'Optional: only when the producing service exports traces. Continue it to join your processing to the request\'s trace.',
  },
  tracestate: { type: 'string', description: 'W3C Trace Context vendor state that goes with traceparent, when there is any.' },
};

/**
 * The AsyncAPI 3 document of every topic and event type, and of the realtime channel apps connect to
 * (realtimeAsyncApi.ts), generated from the zod schemas the services
 * validate with, so the published description cannot drift from the code (a unit test compares it with
 * `docs/asyncapi.json`; `npm run asyncapi` rewrites that file).
 */
export function asyncApiDocument(): Record<string, unknown> {
  const types = (Object.keys(eventCatalog) as EventType[]).sort();
  const channelOf = (topic: string): string => Object.entries(topics).find(([, t]) => t === topic)?.[0] ?? topic;
  const channels: Record<string, { address: string; servers: unknown[]; messages: Record<string, unknown> }> = {};
  for (const [name, address] of Object.entries(topics)) channels[name] = { address, servers: [{ $ref: '#/servers/kafka' }], messages: {} };
  const messages: Record<string, unknown> = {};
  for (const type of types) {
    const versions: Record<number, z.ZodType> = eventCatalog[type];
    const channel = channels[channelOf(topicOf(type))];
    for (const [version, schema] of Object.entries(versions)) {
      const name = `${type}.v${version}`;
      channel!.messages[name] = { $ref: `#/components/messages/${name}` };
      const retired = retiredEventTypes[type];
      messages[name] = {
        name: type,
        ...(retired ? { summary: 'Retired: no longer published.', description: retired } : {}),
        headers: {
          type: 'object',
          properties: {
            type: { const: type },
            appId: { type: 'string' },
            schemaVersion: { const: String(version) },
            keyId: { type: 'string' },
            ...(type === 'MessageSent' ? { category: { type: 'string', description: "The message's category (data.category)." } } : {}),
            ...traceHeaders,
          },
        },
        payload: {
          allOf: [
            { $ref: '#/components/schemas/Envelope' },
            { type: 'object', properties: { type: { const: type }, schemaVersion: { const: Number(version) }, data: jsonSchemaOf(schema) } },
          ],
        },
      };
    }
  }
  const realtime = realtimeAsyncApi();
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Chat platform events',
      version: '1.0.0',
      description:
        'Every service publishes its events on its own topic, keyed by stream id, so one stream\'s events stay in order ' +
        'in one partition. Values are JSON envelopes; headers carry type, appId, schemaVersion, keyId (the acting key id), on a MessageSent its category, and, when the producer exports traces, traceparent (W3C Trace Context). Delivery is at least ' +
        'once: de-duplicate on (streamId, version). Shapes never change in place: a new shape gets a new schemaVersion. ' +
        'Apps reach their users\' share of these events over the realtime channel (`realtime`, `realtimeEvents`): WebSocket or ' +
        'Server-Sent Events, authenticated by a user\'s auth token, resumable by cursor. ' +
        'Generated from packages/contracts/src/events and packages/contracts/src/realtime.ts (npm run asyncapi).',
    },
    defaultContentType: 'application/json',
    servers: {
      kafka: {
        host: '{brokers}',
        protocol: 'kafka',
        description: 'The deployment\'s Kafka cluster (KAFKA_BROKERS): for services and integrations inside it.',
        variables: { brokers: { description: 'A bootstrap broker, host:port.' } },
      },
      ...realtime.servers,
    },
    channels: { ...channels, ...realtime.channels },
    operations: {
      ...Object.fromEntries(Object.keys(topics).map((name) => [`receive-${name}`, { action: 'receive', channel: { $ref: `#/channels/${name}` } }])),
      ...realtime.operations,
    },
    components: {
      schemas: { Envelope: jsonSchemaOf(eventEnvelopeSchema) },
      messages: { ...messages, ...realtime.messages },
      securitySchemes: realtime.securitySchemes,
    },
  };
}
