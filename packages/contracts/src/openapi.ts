import { z } from 'zod';
import { errorStatus } from './errors.js';
import type { ErrorCode } from './errors.js';
import { CHAT_API_PREFIX, routeCatalog } from './routes.js';
import { operationGates } from './roleAccess.js';
import { realtimeOpenApiPaths, realtimeSecurityScheme } from './realtimeOpenApi.js';
import type { RouteSpec } from './routes.js';

/** What an operation's handler parses, as the service declares it: the JSON body and the query string. */
export interface OperationSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
}
export type RequestSchemas = Readonly<Record<string, OperationSchemas>>;

/** What an operation answers, as the service's handler writes it. */
export interface OperationResponse {
  /** The success status: 200 unless the operation answers a create with 201. */
  status?: 200 | 201;
  /** The whole JSON body of the success answer (most are `{ data: … }`); absent: not described yet. */
  body?: z.ZodType;
  /** The codes the operation's own rules answer, beyond those every operation of its kind can (`commonErrors`). */
  errors?: readonly ErrorCode[];
}
export type ResponseSchemas = Readonly<Record<string, OperationResponse>>;

/**
 * The "now" an import record's times are described against: whether a time is in the future depends on
 * the clock of the request, which a document cannot state, so it states only the integer range.
 */
export const DESCRIBED_NOW_SECONDS = Number.MAX_SAFE_INTEGER - 60;

/** A data import body, `{ "<property>": { "<record key>": record, … } }`, as the import routes read it. */
export function importRequest(property: string, record: z.ZodType): z.ZodType {
  return z.object({ [property]: z.record(z.string(), record) });
}

type JsonSchema = Record<string, unknown>;

/**
 * A request schema as a client must send it (the input side of transforms), a response schema as the
 * service answers it (the output side); refinements JSON Schema cannot express are left out.
 */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete converted['$schema'];
  return converted;
}

/** 5xx answers any operation can give: a fault, an unreachable or slow service, a full queue. */
const SERVER_ERRORS: readonly ErrorCode[] = ['ERR_EXCEPTION', 'ERR_UPSTREAM_UNAVAILABLE', 'ERR_UPSTREAM_TIMEOUT', 'ERR_SERVICE_UNAVAILABLE'];

/**
 * The codes the gateway and the shared request handling answer for an operation, from its route:
 * credentials, the app, rate limits, onBehalfOf and the role gate, and malformed input.
 */
export function commonErrors(route: RouteSpec, request: OperationSchemas | undefined): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (route.api === 'management') codes.push('AUTH_ERR_EMPTY_AUTH_HEADER', 'AUTH_ERR_INVALID_CREDENTIALS');
  else {
    codes.push('AUTH_ERR_EMPTY_APIKEY', 'AUTH_ERR_APIKEY_NOT_FOUND', 'AUTH_ERR_EMPTY_APPID', 'AUTH_ERR_INVALID_APPID');
    if (route.scope === 'fullAccess' || route.client !== 'app') codes.push('AUTH_ERR_NO_ACCESS');
    if (route.client !== 'app') codes.push('AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
    if (route.onBehalfOf === 'required') codes.push('ERR_EMPTY_ON_BEHALF_OF');
    if (route.onBehalfOf !== 'ignored' || route.client !== 'app' || Object.hasOwn(operationGates, route.operationId)) codes.push('ERR_UID_NOT_FOUND', 'ERR_PERMISSION_DENIED');
  }
  // Malformed JSON, an unparsable path id or query, a body past the size limit; writes take an Idempotency-Key.
  codes.push('ERR_BAD_REQUEST', 'ERR_TOO_MANY_REQUESTS');
  if (route.method !== 'GET') codes.push('ERR_PAYLOAD_TOO_LARGE', 'ERR_INVALID_IDEMPOTENCY_KEY', 'ERR_IDEMPOTENCY_KEY_REUSED');
  if (request?.query && 'shape' in request.query && Object.hasOwn((request.query as z.ZodObject).shape, 'asOf')) codes.push('ERR_HISTORY_TOO_LONG');
  return codes;
}

/**
 * The error schemas of the document, one per distinct set of codes (most operations share theirs), named
 * `Error<status>_<n>` in order of first use: the document references them instead of repeating them.
 */
class ErrorSchemas {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly names = new Map<string, string>();
  private readonly counts = new Map<number, number>();

  ref(status: number, codes: readonly string[]): JsonSchema {
    const key = `${status}:${codes.join(',')}`;
    let name = this.names.get(key);
    if (!name) {
      const n = (this.counts.get(status) ?? 0) + 1;
      this.counts.set(status, n);
      name = `Error${status}_${n}`;
      this.names.set(key, name);
      this.schemas[name] = errorSchema(codes);
    }
    return { $ref: `#/components/schemas/${name}` };
  }
}

/** One response per error status the operation can answer, its `code` limited to that status' codes. */
function errorResponses(codes: readonly ErrorCode[], errorSchemas: ErrorSchemas): Record<string, JsonSchema> {
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of [...codes, ...SERVER_ERRORS]) {
    const status = errorStatus[code];
    if (!byStatus.has(status)) byStatus.set(status, new Set());
    byStatus.get(status)?.add(code);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, set]) => [
        String(status),
        {
          description: `An error in CometChat's shape: ${[...set].sort().join(', ')}.`,
          content: { 'application/json': { schema: errorSchemas.ref(status, [...set].sort()) } },
        },
      ]),
  );
}

function errorSchema(codes: readonly string[]): JsonSchema {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string', enum: codes }, message: { type: 'string' }, details: {} },
      },
    },
  };
}

/** Where an operation has no response schema yet: any JSON, so a client is told nothing false. */
const UNDESCRIBED = { description: 'Success (its shape is not described yet).', content: { 'application/json': { schema: {} } } };

/** `/users/:uid` → `/v3/users/{uid}` for the chat API; management paths have no prefix. */
export function openApiPath(route: Pick<RouteSpec, 'api' | 'path'>): string {
  const path = route.path.replace(/:(\w+)/g, '{$1}');
  return route.api === 'chat' ? `${CHAT_API_PREFIX}${path}` : path;
}

function pathParameters(route: RouteSpec): JsonSchema[] {
  return [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

function queryParameters(schema: z.ZodType | undefined): JsonSchema[] {
  if (!schema) return [];
  const json = jsonSchemaOf(schema);
  const properties = (json['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, in: 'query', required: required.has(name), schema: property }));
}

function headerParameters(route: RouteSpec): JsonSchema[] {
  if (route.api === 'management') return [];
  const parameters: JsonSchema[] = [
    { name: 'appId', in: 'header', required: false, description: 'The app, unless the host names it (`<appId>.api-<region>.<DOMAIN>`).', schema: { type: 'string' } },
  ];
  if (route.onBehalfOf !== 'ignored') {
    parameters.push({
      name: 'onBehalfOf',
      in: 'header',
      required: route.onBehalfOf === 'required',
      description: 'The uid the call acts as.',
      schema: { type: 'string' },
    });
  } else if (Object.hasOwn(operationGates, route.operationId)) {
    parameters.push({
      name: 'onBehalfOf',
      in: 'header',
      required: false,
      description: "The uid whose role's permissions and restricted features gate the call; the call still acts as the app.",
      schema: { type: 'string' },
    });
  }
  return parameters;
}

function security(route: RouteSpec): JsonSchema[] {
  if (route.scope === 'management') return [{ managementKey: [], managementSecret: [] }];
  // Which key scopes may call the operation: `authOnly` accepts either, `fullAccess` only a REST key;
  // a user's auth token the operations a user performs for itself (ADR 0070).
  return route.client === 'app' ? [{ apiKey: [] }] : [{ apiKey: [] }, { authToken: [] }];
}

function operationOf(route: RouteSpec, schemas: OperationSchemas | undefined, response: OperationResponse | undefined, errorSchemas: ErrorSchemas): JsonSchema {
  const success = response?.body
    ? { description: 'Success.', content: { 'application/json': { schema: jsonSchemaOf(response.body, 'output') } } }
    : UNDESCRIBED;
  const errors = [...new Set([...commonErrors(route, schemas), ...(response?.errors ?? [])])];
  const operation: JsonSchema = {
    operationId: route.operationId,
    tags: [route.service],
    'x-required-scope': route.scope,
    'x-client-access': route.client,
    parameters: [...pathParameters(route), ...headerParameters(route), ...queryParameters(schemas?.query)],
    security: security(route),
    responses: {
      [String(response?.status ?? 200)]: success,
      ...errorResponses(errors, errorSchemas),
      default: { description: 'An error in CometChat\'s shape.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  };
  if (schemas?.body) {
    operation['requestBody'] = { required: true, content: { 'application/json': { schema: jsonSchemaOf(schemas.body) } } };
  }
  return operation;
}

/**
 * The OpenAPI 3.1 description of the API the gateway serves: every operation of the route catalogue,
 * with the request schemas its service parses (zod, converted to JSON Schema 2020-12). Deterministic,
 * so `docs/openapi.json` can be checked for staleness like the AsyncAPI document.
 */
export function openApiDocument(requests: RequestSchemas, responses: ResponseSchemas = {}, routes: readonly RouteSpec[] = routeCatalog): JsonSchema {
  const unknown = [...Object.keys(requests), ...Object.keys(responses)].filter((operationId) => !routes.some((route) => route.operationId === operationId));
  if (unknown.length > 0) throw new Error(`schemas for operations not in the route catalogue: ${unknown.join(', ')}`);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const errorSchemas = new ErrorSchemas();
  for (const route of routes) {
    const path = openApiPath(route);
    (paths[path] ??= {})[route.method.toLowerCase()] = operationOf(route, requests[route.operationId], responses[route.operationId], errorSchemas);
  }
  // The realtime channel is served beside the catalogue (the gateway upgrades or streams it itself).
  Object.assign(paths, realtimeOpenApiPaths((codes) => errorResponses(codes, errorSchemas)));
  const sortedPaths = Object.fromEntries(Object.keys(paths).sort().map((path) => [path, paths[path]]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Chat platform API',
      version: '3.0.0',
      description:
        "CometChat REST v3 compatible chat API and its management API, served by the gateway, and the entries of the realtime channel (its frames: docs/asyncapi.json). Generated from the route catalogue and the services' zod schemas (npm run openapi).",
    },
    servers: [{ url: '/' }],
    paths: sortedPaths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'apikey' },
        authToken: {
          type: 'apiKey',
          in: 'header',
          name: 'authtoken',
          description: "A user's auth token (POST /v3/users/{uid}/auth_tokens) instead of an apikey: the call acts as that user, on the operations whose x-client-access is user or self (self: on the user's own uid only); onBehalfOf may name only that user.",
        },
        realtimeAuthToken: realtimeSecurityScheme,
        managementKey: { type: 'apiKey', in: 'header', name: 'key' },
        managementSecret: { type: 'apiKey', in: 'header', name: 'secret' },
      },
      schemas: {
        Error: errorSchema(Object.keys(errorStatus).sort()),
        ...errorSchemas.schemas,
      },
    },
  };
}
