import { readFileSync } from 'node:fs';
import { openApiPath, routeCatalog } from '@chat/contracts';
import type { RouteSpec } from '@chat/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, managementHeaders } from './support/api.js';
import type { ApiResponse, RequestOptions } from './support/api.js';
import { mapBounded } from './support/concurrency.js';
import { createRouteFixtures, pathOf } from './support/routeFixtures.js';
import type { RouteFixtures } from './support/routeFixtures.js';

/**
 * Every operation that parses a JSON body, generated from the committed OpenAPI description, gets
 * bodies no client should send: text that is not JSON, JSON that is not an object, a body past the
 * size limit, and, for each documented field, that field alone with a value of a type the schema
 * does not allow. Each must be a 4xx in CometChat's error shape (never a 2xx, never a 5xx), and
 * together they must leave the fixtures' resources as they were.
 */

interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
}

interface Operation {
  operationId: string;
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
}

const document = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};

/** The JSON types a schema allows, or null when it does not say (such a field is left out). */
function allowedTypes(schema: JsonSchema): Set<string> | null {
  if (schema.type !== undefined) {
    const types = new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
    if (types.has('integer')) types.add('number');
    return types;
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (!alternatives) return null;
  const union = new Set<string>();
  for (const alternative of alternatives) {
    const types = allowedTypes(alternative);
    if (!types) return null;
    for (const type of types) union.add(type);
  }
  return union;
}

/** One value per JSON type, each plainly not of the others. */
const valueOfType: Array<[string, unknown]> = [
  ['number', 12345],
  ['string', 'not-this-type'],
  ['boolean', true],
  ['object', { unexpected: 1 }],
  ['array', [1, 'two']],
];

function wrongValueFor(schema: JsonSchema): unknown {
  const allowed = allowedTypes(schema);
  if (!allowed) return undefined;
  return valueOfType.find(([type]) => !allowed.has(type))?.[1];
}

interface BadBody {
  route: RouteSpec;
  name: string;
  options: RequestOptions;
}

const bodyRoutes = routeCatalog.filter((route) => document.paths[openApiPath(route)]?.[route.method.toLowerCase()]?.requestBody !== undefined);

let fixtures: RouteFixtures;

beforeAll(async () => {
  fixtures = await createRouteFixtures('bad bodies');
});

function badBodiesOf(route: RouteSpec): BadBody[] {
  const { app, owner } = fixtures;
  const credentials: RequestOptions =
    route.api === 'management'
      ? { headers: managementHeaders() }
      : { appId: app.appId, apiKey: app.fullAccessKey, ...(route.onBehalfOf === 'ignored' ? {} : { onBehalfOf: owner }) };
  const bodies: BadBody[] = [];
  const add = (name: string, options: RequestOptions) => bodies.push({ route, name, options: { ...credentials, ...options } });
  add('not JSON', { rawBody: '{"almost": ' });
  add('a JSON array', { rawBody: '[]' });
  add('JSON null', { rawBody: 'null' });
  add('a JSON string', { rawBody: '"text"' });
  add('past the size limit', { body: { padding: 'x'.repeat(2 * 1024 * 1024) } });
  const schema = document.paths[openApiPath(route)]![route.method.toLowerCase()]!.requestBody!.content['application/json'].schema;
  for (const [field, fieldSchema] of Object.entries(schema.properties ?? {})) {
    const wrong = wrongValueFor(fieldSchema);
    if (wrong !== undefined) add(`${field} of the wrong type`, { body: { [field]: wrong } });
  }
  return bodies;
}

/** What the bad bodies could have touched, read as a client sees it. */
async function fixtureState(): Promise<unknown[]> {
  const { app, owner, peer, guid, messageId } = fixtures;
  const reads: Array<Promise<ApiResponse>> = [
    app.call('GET', `/v3/users/${owner}`),
    app.call('GET', `/v3/users/${peer}`),
    app.call('GET', '/v3/users?perPage=100'),
    app.call('GET', `/v3/groups/${guid}`),
    app.call('GET', `/v3/groups/${guid}/members?perPage=100`),
    app.call('GET', `/v3/messages/${messageId}`, { onBehalfOf: owner }),
    app.call('GET', '/v3/roles?perPage=100'),
    app.call('GET', '/v3/apikeys'),
    call('GET', `/apps/${app.appId}`, { headers: managementHeaders() }),
  ];
  return (await Promise.all(reads)).map((response) => ({ status: response.status, body: response.body }));
}

describe('bodies no client should send, on every operation that parses one', () => {
  it('are refused with a 4xx in CometChat’s error shape and change nothing', async () => {
    expect(bodyRoutes.length).toBeGreaterThan(40);
    const before = await fixtureState();
    const cases = bodyRoutes.flatMap(badBodiesOf);
    const answers = await mapBounded(cases, 8, async (badBody) => {
      const response = await call(badBody.route.method, pathOf(badBody.route, fixtures), badBody.options);
      return { label: `${badBody.route.method} ${badBody.route.path} (${badBody.route.operationId}): ${badBody.name}`, response };
    });
    const wrong = answers
      .filter(({ response }) => !(response.status >= 400 && response.status < 500 && typeof response.body?.error?.code === 'string' && typeof response.body?.error?.message === 'string'))
      .map(({ label, response }) => `${label} → ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
    expect(wrong).toEqual([]);
    const tally = new Map<string, number>();
    for (const { response } of answers) tally.set(`${response.status} ${response.body.error.code}`, (tally.get(`${response.status} ${response.body.error.code}`) ?? 0) + 1);
    console.log(`bad bodies: ${bodyRoutes.length} operations, ${cases.length} bodies refused:`, Object.fromEntries(tally));
    expect(await fixtureState()).toEqual(before);
  });
});
