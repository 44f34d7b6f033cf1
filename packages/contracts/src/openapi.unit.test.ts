import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commonErrors, openApiDocument } from './openapi.js';
import { dataOf } from './responseShapes.js';
import type { RouteSpec } from './routes.js';

const routes: RouteSpec[] = [
  { api: 'chat', method: 'GET', path: '/things/:id', operationId: 'get-thing', service: 'users', scope: 'fullAccess', onBehalfOf: 'required', client: 'user' },
  { api: 'chat', method: 'POST', path: '/things', operationId: 'create-thing', service: 'users', scope: 'authOnly', onBehalfOf: 'ignored', client: 'app' },
  { api: 'management', method: 'GET', path: '/apps', operationId: 'list-apps', service: 'management', scope: 'management', onBehalfOf: 'ignored', client: 'app' },
];
type Responses = Record<string, { content?: { 'application/json': { schema: Record<string, unknown> } } }>;
const responsesOf = (document: Record<string, unknown>, path: string, method: string) =>
  (document['paths'] as Record<string, Record<string, { responses: Responses }>>)[path]?.[method]?.responses ?? {};
/** The codes of an error response: its schema is a shared component. */
const codesOf = (responses: Responses, status: string, document: Record<string, unknown>) => {
  const ref = String(responses[status]?.content?.['application/json'].schema['$ref']);
  const schemas = (document['components'] as { schemas: Record<string, { properties: { error: { properties: { code: { enum: string[] } } } } }> }).schemas;
  return schemas[ref.replace('#/components/schemas/', '')]?.properties.error.properties.code.enum;
};

describe('openApiDocument', () => {
  const document = openApiDocument(
    {},
    {
      'get-thing': { body: dataOf(z.looseObject({ id: z.string() })), errors: ['ERR_UID_NOT_FOUND'] },
      'create-thing': { status: 201, body: dataOf(z.object({ id: z.string() })) },
    },
    routes,
  );

  it('describes the success answer with the response schema, at its status', () => {
    const get = responsesOf(document, '/v3/things/{id}', 'get');
    expect(get['200']?.content?.['application/json'].schema).toMatchObject({ type: 'object', required: ['data'], properties: { data: { required: ['id'] } } });
    const create = responsesOf(document, '/v3/things', 'post');
    expect(create['201']).toBeDefined();
    expect(create['200']).toBeUndefined();
  });

  it('answers each error status with exactly the codes the route and the operation can give', () => {
    const get = responsesOf(document, '/v3/things/{id}', 'get');
    expect(codesOf(get, '404', document)).toEqual(['ERR_UID_NOT_FOUND']);
    expect(codesOf(get, '400', document)).toEqual(['AUTH_ERR_EMPTY_APPID', 'ERR_BAD_REQUEST', 'ERR_EMPTY_ON_BEHALF_OF']);
    expect(codesOf(get, '403', document)).toEqual(['AUTH_ERR_NO_ACCESS', 'ERR_PERMISSION_DENIED']);
    expect(codesOf(get, '500', document)).toEqual(['ERR_EXCEPTION']);
    const management = responsesOf(document, '/apps', 'get');
    expect(codesOf(management, '401', document)).toEqual(['AUTH_ERR_EMPTY_AUTH_HEADER', 'AUTH_ERR_INVALID_CREDENTIALS']);
    expect(management['200']?.content?.['application/json'].schema).toEqual({});
  });

  it('gives writes the payload and idempotency codes, and an authOnly route no scope refusal', () => {
    const codes = commonErrors(routes[1] as RouteSpec, undefined);
    expect(codes).toEqual(expect.arrayContaining(['ERR_PAYLOAD_TOO_LARGE', 'ERR_IDEMPOTENCY_KEY_REUSED']));
    expect(codes).not.toContain('AUTH_ERR_NO_ACCESS');
    expect(commonErrors(routes[0] as RouteSpec, undefined)).not.toContain('ERR_PAYLOAD_TOO_LARGE');
  });

  it("lets a user's auth token call the operations a client may (ADR 0070), and says what it answers then", () => {
    const operation = (path: string, method: string) =>
      (document['paths'] as Record<string, Record<string, { security: unknown[]; 'x-client-access': string }>>)[path]?.[method];
    expect(operation('/v3/things/{id}', 'get')).toMatchObject({ security: [{ apiKey: [] }, { authToken: [] }], 'x-client-access': 'user' });
    expect(operation('/v3/things', 'post')).toMatchObject({ security: [{ apiKey: [] }], 'x-client-access': 'app' });
    expect(codesOf(responsesOf(document, '/v3/things/{id}', 'get'), '401', document)).toContain('AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
    expect(codesOf(responsesOf(document, '/v3/things', 'post'), '401', document)).not.toContain('AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
    expect((document['components'] as { securitySchemes: Record<string, unknown> }).securitySchemes['authToken']).toMatchObject({ in: 'header', name: 'authtoken' });
  });

  it('describes the realtime channel: a WebSocket upgrade and an event stream, opened with an auth token in the query', () => {
    const paths = document['paths'] as Record<string, Record<string, { operationId: string; security: unknown[]; parameters: Array<{ name: string; in: string }> }>>;
    const socket = responsesOf(document, '/v3/realtime', 'get');
    expect(Object.keys(socket)).toEqual(expect.arrayContaining(['101', '401', '429', 'default']));
    expect(socket['200']).toBeUndefined();
    const events = responsesOf(document, '/v3/realtime/events', 'get') as Record<string, { content?: Record<string, unknown> }>;
    expect(Object.keys(events['200']?.content ?? {})).toEqual(['text/event-stream']);
    expect(codesOf(events as Responses, '401', document)).toEqual(['AUTH_ERR_AUTH_TOKEN_NOT_FOUND', 'AUTH_ERR_INVALID_APPID']);
    for (const path of ['/v3/realtime', '/v3/realtime/events']) {
      expect(paths[path]?.['get']?.security).toEqual([{ realtimeAuthToken: [] }]);
      // The token is the security scheme's query parameter, not a second, plain one.
      expect(paths[path]?.['get']?.parameters.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(['appId', 'since']);
    }
    expect((document['components'] as { securitySchemes: Record<string, unknown> }).securitySchemes['realtimeAuthToken']).toMatchObject({ in: 'query', name: 'authToken' });
  });

  it('refuses schemas for an operation the catalogue does not have', () => {
    expect(() => openApiDocument({}, { 'no-such-op': { body: z.object({}) } }, routes)).toThrow(/no-such-op/);
  });
});
