import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asyncApiDocument } from './asyncapi.js';
import { eventCatalog, retiredEventTypes, topicOf } from './events/registry.js';
import type { EventType } from './events/registry.js';
import { clientFrameSchemas, realtimePaths, serverFrameTypes } from './realtime.js';

describe('the published AsyncAPI document', () => {
  it('is the one the schemas generate (run `npm run asyncapi` after changing an event)', () => {
    const committed: unknown = JSON.parse(readFileSync(new URL('../../../docs/asyncapi.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(asyncApiDocument());
  });

  it('lists every event type on the topic of the service that publishes it', () => {
    const document = asyncApiDocument() as { channels: Record<string, { address: string; messages: Record<string, unknown> }> };
    for (const type of Object.keys(eventCatalog) as EventType[]) {
      const channel = Object.values(document.channels).find((c) => c.address === topicOf(type));
      expect(Object.keys(channel?.messages ?? {}), type).toContain(`${type}.v1`);
    }
    expect(topicOf('GroupMembersAdded')).toBe('chat.conversations.events');
    expect(topicOf('UsersBlocked')).toBe('chat.users.events');
  });

  it('says which event types are no longer published', () => {
    const document = asyncApiDocument() as { components: { messages: Record<string, { summary?: string; description?: string }> } };
    expect(document.components.messages['NotificationAttempted.v1']).toMatchObject({ summary: 'Retired: no longer published.', description: retiredEventTypes.NotificationAttempted });
    expect(document.components.messages['MessageSent.v1']?.summary).toBeUndefined();
  });

  it('documents the realtime channel: both transports, every frame both ways, the close codes, auth by query', () => {
    const document = asyncApiDocument() as {
      servers: Record<string, { protocol: string; security?: unknown[] }>;
      channels: Record<string, { address: string; description: string; servers: { $ref: string }[]; messages: Record<string, unknown>; bindings?: any }>;
      operations: Record<string, { action: string; messages?: { $ref: string }[] }>;
      components: { messages: Record<string, { payload: { properties: Record<string, unknown>; required?: string[] } }>; securitySchemes: Record<string, unknown> };
    };
    const ws = document.channels['realtime']!;
    const sse = document.channels['realtimeEvents']!;
    expect([ws.address, sse.address]).toEqual([realtimePaths.websocket, realtimePaths.events]);
    expect(document.servers[ws.servers[0]!.$ref.split('/').pop()!]?.protocol).toBe('wss');
    expect(document.servers[sse.servers[0]!.$ref.split('/').pop()!]?.protocol).toBe('https');
    expect(Object.keys(ws.bindings.ws.query.properties).sort()).toEqual(['appId', 'authToken', 'since']);
    expect(document.components.securitySchemes['authToken']).toMatchObject({ type: 'httpApiKey', in: 'query', name: 'authToken' });
    for (const type of serverFrameTypes) {
      expect(Object.keys(ws.messages), type).toContain(`realtime.${type}`);
      const payload = document.components.messages[`realtime.${type}`]!.payload;
      expect(payload.properties['type'], type).toEqual({ type: 'string', const: type });
      // Only the ephemeral frames lack a cursor.
      expect(payload.required?.includes('cursor'), type).toBe(!['typing_started', 'typing_ended', 'presence', 'pong', 'error', 'resync_required'].includes(type));
    }
    expect(Object.keys(sse.messages)).not.toContain('realtime.pong');
    expect(Object.keys(sse.messages)).not.toContain('realtime.error');
    expect(Object.keys(sse.messages)).toContain('realtime.resync_required');
    const sent = document.operations['send-realtime']!;
    expect(sent.action).toBe('send');
    expect(sent.messages!.map((m) => m.$ref.split('/').pop()).sort()).toEqual(Object.keys(clientFrameSchemas).map((t) => `realtime.client.${t}`).sort());
    for (const text of [ws.description, sse.description]) {
      expect(text).toContain('since');
      expect(text).toContain('resync_required');
      expect(text).toContain('4401');
      expect(text).toContain('4008');
    }
    expect(sse.description).toContain('Last-Event-ID');
    // The Kafka topics stay on the brokers' server, not on the realtime hosts.
    expect(document.channels['messages']!.servers).toEqual([{ $ref: '#/servers/kafka' }]);
  });
});
