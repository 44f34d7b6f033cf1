import { jsonSchemaOf } from './jsonSchema.js';
import {
  REALTIME_CLOSE_TOKEN_REVOKED,
  REALTIME_CLOSE_TOO_SLOW,
  clientFrameSchemas,
  cursorFrameTypes,
  realtimeCloseCodes,
  realtimePaths,
  realtimeQuerySchema,
  serverFrameSchemas,
  serverFrameTypes,
} from './realtime.js';
import type { ClientFrameType } from './realtime.js';

/*
 * The realtime channel's part of the AsyncAPI document (asyncapi.ts joins it to the Kafka topics):
 * generated from the zod schemas of realtime.ts, like the topics from the event schemas.
 */

const chatHost = '{appId}.api-{region}.{domain}';
const hostVariables = {
  appId: { description: 'The app. On the plain host of a deployment, give it as the `appId` query parameter instead.' },
  region: { description: 'The deployment\'s region (REGION).' },
  domain: { description: 'The deployment\'s domain (DOMAIN).' },
};

const auth =
  'Authenticated by an auth token of the user (`POST /v3/users/{uid}/auth_tokens`) in the `authToken` query parameter, ' +
  'the tenant by the chat host or the `appId` query parameter (browsers cannot set headers on a WebSocket or an EventSource). ' +
  'No token, an unknown one or another app\'s: `401` in CometChat\'s error shape `{"error":{"code","message"}}` instead of the upgrade or the stream. ' +
  'A token in the query string is never logged or traced.';

const delivery =
  'Every frame is JSON `{"type", "cursor", "data"}`; typing, presence and pong are ephemeral and carry no cursor (never replayed). ' +
  'Per conversation, frames arrive in send order. **Resume**: connect with `since=<cursor>` (the last cursor received) and the server first ' +
  'delivers, in order and once each, every cursor frame the user would have received after it, then live frames. A cursor older than the ' +
  'retained window (or from another deployment) gets one `resync_required` frame: re-read what you show over REST, then carry on with its cursor. ' +
  'Cursors are ordered per partition, so a client drops a replayed frame whose cursor is not ahead of the last one it handled.';

const closeCodes = Object.entries(realtimeCloseCodes)
  .map(([code, meaning]) => `\`${code}\`: ${meaning}`)
  .join(' ');

const serverMessage = (type: string): string => `realtime.${type}`;
const clientMessage = (type: string): string => `realtime.client.${type}`;
const clientTypes = Object.keys(clientFrameSchemas) as ClientFrameType[];
/** SSE carries what the server pushes, minus the answers to client frames (a one-way stream has none). */
const sseTypes = serverFrameTypes.filter((type) => type !== 'pong' && type !== 'error');

function transportNote(type: string): string {
  if ((cursorFrameTypes as readonly string[]).includes(type)) return `On SSE: \`event: ${type}\`, \`id:\` the cursor, \`data:\` the frame.`;
  if (type === 'resync_required') return 'On SSE: `event: resync_required`, with `id:` when it carries a cursor.';
  if (!sseTypes.includes(type as (typeof sseTypes)[number])) return 'Ephemeral: no cursor, never replayed. WebSocket only.';
  return `Ephemeral: no cursor, never replayed. On SSE: \`event: ${type}\`, no \`id:\`.`;
}

/** The servers, channels, operations and component messages of the realtime channel. */
export function realtimeAsyncApi(): {
  servers: Record<string, unknown>;
  channels: Record<string, unknown>;
  operations: Record<string, unknown>;
  messages: Record<string, unknown>;
  securitySchemes: Record<string, unknown>;
} {
  const security = [{ $ref: '#/components/securitySchemes/authToken' }];
  const refs = (types: readonly string[], name: (type: string) => string) =>
    Object.fromEntries(types.map((type) => [name(type), { $ref: `#/components/messages/${name(type)}` }]));
  const messages: Record<string, unknown> = {};
  for (const type of serverFrameTypes) {
    const schema = serverFrameSchemas[type];
    messages[serverMessage(type)] = {
      name: type,
      title: `server frame ${type}`,
      summary: schema.description,
      payload: jsonSchemaOf(schema),
      description: transportNote(type),
    };
  }
  for (const type of clientTypes) {
    const schema = clientFrameSchemas[type];
    messages[clientMessage(type)] = { name: type, title: `client frame ${type}`, summary: schema.description, payload: jsonSchemaOf(schema) };
  }
  const query = jsonSchemaOf(realtimeQuerySchema);
  return {
    servers: {
      'realtime-websocket': {
        host: chatHost,
        protocol: 'wss',
        description: 'The gateway, forwarding the upgrade to the realtime service. Plain `ws` where the deployment serves plain HTTP.',
        variables: hostVariables,
        security,
      },
      'realtime-sse': {
        host: chatHost,
        protocol: 'https',
        description: 'The gateway, forwarding the stream (`text/event-stream`) to the realtime service.',
        variables: hostVariables,
        security,
      },
    },
    channels: {
      realtime: {
        address: realtimePaths.websocket,
        title: 'Realtime (WebSocket)',
        description: `${auth}\n\n${delivery}\n\nClose codes: ${closeCodes} Send \`ping\` to keep an idle connection open through proxies; the server answers \`pong\`.`,
        servers: [{ $ref: '#/servers/realtime-websocket' }],
        messages: { ...refs(serverFrameTypes, serverMessage), ...refs(clientTypes, clientMessage) },
        bindings: { ws: { method: 'GET', query, bindingVersion: '0.1.0' } },
      },
      realtimeEvents: {
        address: realtimePaths.events,
        title: 'Realtime (Server-Sent Events)',
        description:
          `${auth}\n\n${delivery}\n\nThe same frames as events: \`id:\` the cursor (cursor frames only), \`event:\` the type, \`data:\` the frame. ` +
          `Resume from \`Last-Event-ID\` (EventSource sends it on its own reconnects, with the URL it first opened: it wins over \`since\`) or \`since\`. A token revoked while connected ends the stream ` +
          `(the WebSocket's ${REALTIME_CLOSE_TOKEN_REVOKED}; the next request gets 401); a client too slow to read has its stream ended ` +
          `(the WebSocket's ${REALTIME_CLOSE_TOO_SLOW}) and resumes from its last id. One-way: typing and ping need the WebSocket.`,
        servers: [{ $ref: '#/servers/realtime-sse' }],
        messages: refs(sseTypes, serverMessage),
      },
    },
    operations: {
      'receive-realtime': {
        action: 'receive',
        channel: { $ref: '#/channels/realtime' },
        messages: serverFrameTypes.map((type) => ({ $ref: `#/channels/realtime/messages/${serverMessage(type)}` })),
      },
      'send-realtime': {
        action: 'send',
        channel: { $ref: '#/channels/realtime' },
        summary: 'Typing to conversations the user may write to, and keep-alive pings.',
        messages: clientTypes.map((type) => ({ $ref: `#/channels/realtime/messages/${clientMessage(type)}` })),
      },
      'receive-realtimeEvents': {
        action: 'receive',
        channel: { $ref: '#/channels/realtimeEvents' },
        messages: sseTypes.map((type) => ({ $ref: `#/channels/realtimeEvents/messages/${serverMessage(type)}` })),
      },
    },
    messages,
    securitySchemes: {
      authToken: { type: 'httpApiKey', in: 'query', name: 'authToken', description: 'An auth token of the user the connection acts as.' },
    },
  };
}
