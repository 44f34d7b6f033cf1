import type { ErrorCode } from './errors.js';
import { jsonSchemaOf } from './jsonSchema.js';
import { realtimePaths, realtimeQuerySchema } from './realtime.js';

/*
 * The realtime channel's two HTTP entries in the OpenAPI document (ADR 0069, 0075): a platform team
 * reading /openapi.json finds how to open them, who may, and what refuses them; the frames they carry
 * are in docs/asyncapi.json (channels `realtime` and `realtimeEvents`), generated from the same schemas.
 */

type JsonSchema = Record<string, unknown>;

/** What the gateway (or the replica behind it) answers instead of the upgrade or the stream. */
export const realtimeAdmissionErrors: readonly ErrorCode[] = [
  'AUTH_ERR_EMPTY_APPID',
  'AUTH_ERR_INVALID_APPID',
  'AUTH_ERR_AUTH_TOKEN_NOT_FOUND',
  'ERR_API_NOT_FOUND',
  'ERR_TOO_MANY_REQUESTS',
];

/** The security scheme: an auth token in the query string (browsers set no header on a WebSocket or an EventSource). */
export const realtimeSecurityScheme = {
  type: 'apiKey',
  in: 'query',
  name: 'authToken',
  description: "An auth token of the user (POST /v3/users/{uid}/auth_tokens), on the realtime channel only: never logged or traced. The tenant comes from the chat host or the appId query parameter.",
} as const;

/** The query parameters besides the token (the security scheme names it). */
function queryParameters(): JsonSchema[] {
  const json = jsonSchemaOf(realtimeQuerySchema);
  const properties = (json['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json['required'] ?? []) as string[]);
  return Object.entries(properties)
    .filter(([name]) => name !== realtimeSecurityScheme.name)
    .map(([name, { description, ...schema }]) => ({ name, in: 'query', required: required.has(name), description, schema }));
}

/**
 * The two operations as OpenAPI path items; `errors` renders the refusals (one response per status, in
 * CometChat's error shape), as it does for the REST operations.
 */
export function realtimeOpenApiPaths(errors: (codes: readonly ErrorCode[]) => Record<string, JsonSchema>): Record<string, Record<string, JsonSchema>> {
  const common = {
    tags: ['realtime'],
    // No API key opens it, only a user's token (the REST operations say `authOnly`, `fullAccess` or `management` here).
    'x-required-scope': 'authToken',
    'x-client-access': 'user',
    security: [{ realtimeAuthToken: [] }],
  };
  const refusals = { ...errors(realtimeAdmissionErrors), default: { description: "An error in CometChat's shape.", content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } };
  return {
    [realtimePaths.websocket]: {
      get: {
        operationId: 'realtime-connect',
        ...common,
        summary: 'Open the realtime channel (WebSocket)',
        description:
          "A WebSocket upgrade: the frames pushed to the token's user (messages, edits, deletions, reactions, receipts, typing, presence) and the frames it may send (typing, ping) are the `realtime` channel of docs/asyncapi.json. `since` resumes after a cursor.",
        parameters: queryParameters(),
        responses: { '101': { description: 'Switching Protocols: the socket carries the `realtime` channel of docs/asyncapi.json.' }, ...refusals },
      },
    },
    [realtimePaths.events]: {
      get: {
        operationId: 'realtime-events',
        ...common,
        summary: 'Follow the realtime channel (Server-Sent Events)',
        description:
          'The same frames as the WebSocket, one way: `id:` the cursor, `event:` the type, `data:` the frame (the `realtimeEvents` channel of docs/asyncapi.json). Resumes from `Last-Event-ID` (wins over `since`).',
        parameters: [
          ...queryParameters(),
          { name: 'Last-Event-ID', in: 'header', required: false, description: 'The last cursor received; an EventSource sends it on its own reconnects.', schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'The event stream, open until the client leaves.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...refusals,
        },
      },
    },
  };
}
