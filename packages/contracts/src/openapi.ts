import { z } from 'zod';
import { errorStatus } from './errors.js';
import { CHAT_API_PREFIX, routeCatalog } from './routes.js';
import { operationGates } from './roleAccess.js';
import type { RouteSpec } from './routes.js';

/** What an operation's handler parses, as the service declares it: the JSON body and the query string. */
export interface OperationSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
}
export type RequestSchemas = Readonly<Record<string, OperationSchemas>>;

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

/** The schema a client must send: the input side of transforms, refinements it cannot express left out. */
function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete converted['$schema'];
  return converted;
}

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
  // Which key scopes may call the operation: `authOnly` accepts either, `fullAccess` only a REST key.
  return [{ apiKey: [] }];
}

function operationOf(route: RouteSpec, schemas: OperationSchemas | undefined): JsonSchema {
  const operation: JsonSchema = {
    operationId: route.operationId,
    tags: [route.service],
    'x-required-scope': route.scope,
    parameters: [...pathParameters(route), ...headerParameters(route), ...queryParameters(schemas?.query)],
    security: security(route),
    responses: {
      '200': { description: 'Success.', content: { 'application/json': { schema: { type: 'object', properties: { data: {} } } } } },
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
export function openApiDocument(requests: RequestSchemas, routes: readonly RouteSpec[] = routeCatalog): JsonSchema {
  const unknown = Object.keys(requests).filter((operationId) => !routes.some((route) => route.operationId === operationId));
  if (unknown.length > 0) throw new Error(`request schemas for operations not in the route catalogue: ${unknown.join(', ')}`);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = openApiPath(route);
    (paths[path] ??= {})[route.method.toLowerCase()] = operationOf(route, requests[route.operationId]);
  }
  const sortedPaths = Object.fromEntries(Object.keys(paths).sort().map((path) => [path, paths[path]]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Chat platform API',
      version: '3.0.0',
      description: 'CometChat REST v3 compatible chat API and its management API, served by the gateway. Generated from the route catalogue and the services\' zod schemas (npm run openapi).',
    },
    servers: [{ url: '/' }],
    paths: sortedPaths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'apikey' },
        managementKey: { type: 'apiKey', in: 'header', name: 'key' },
        managementSecret: { type: 'apiKey', in: 'header', name: 'secret' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'string', enum: Object.keys(errorStatus).sort() }, message: { type: 'string' }, details: {} },
            },
          },
        },
      },
    },
  };
}
