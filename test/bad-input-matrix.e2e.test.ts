import { readFileSync } from 'node:fs';
import { openApiPath, routeCatalog, userConversationId } from '@chat/contracts';
import type { RouteSpec } from '@chat/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, managementHeaders } from './support/api.js';
import type { ApiResponse, RequestOptions } from './support/api.js';
import { mapBounded } from './support/concurrency.js';
import { createRouteFixtures, pathOf } from './support/routeFixtures.js';
import type { RouteFixtures } from './support/routeFixtures.js';

/**
 * The bad-input matrix, generated like the auth matrix from the route catalogue and the committed
 * OpenAPI description:
 * - every operation that parses a JSON body gets bodies no client should send: text that is not
 *   JSON, JSON that is not an object, a body past the size limit, and, for each documented field,
 *   that field alone with a value of a type the schema does not allow;
 * - every path parameter of every operation gets an id that names nothing, one past any id's length,
 *   and one with characters no id has;
 * - every user, group, conversation and call id of every operation, and the acting user, gets an id
 *   that names something in another app (tenant isolation).
 * Each must be a 4xx in CometChat's error shape (never a 2xx, never a 5xx), and together they must
 * leave the fixtures' resources as they were.
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

/** One request that must be refused. */
interface BadRequest {
  route: RouteSpec;
  name: string;
  path: string;
  options: RequestOptions;
}

const bodyRoutes = routeCatalog.filter((route) => document.paths[openApiPath(route)]?.[route.method.toLowerCase()]?.requestBody !== undefined);

let fixtures: RouteFixtures;
/** Another app's fixtures, named apart from ours: its ids name nothing in our app. */
let otherTenant: RouteFixtures;

beforeAll(async () => {
  [fixtures, otherTenant] = await Promise.all([createRouteFixtures('bad input'), createRouteFixtures('bad input other tenant', 'other-')]);
});

/** The credentials that let the fixtures' owner make the call, so only the bad part can refuse it. */
function credentialsFor(route: RouteSpec): RequestOptions {
  const { app, owner } = fixtures;
  if (route.api === 'management') return { headers: managementHeaders() };
  return { appId: app.appId, apiKey: app.fullAccessKey, ...(route.onBehalfOf === 'ignored' ? {} : { onBehalfOf: owner }) };
}

function badBodiesOf(route: RouteSpec): BadRequest[] {
  const bodies: BadRequest[] = [];
  const add = (name: string, options: RequestOptions) =>
    bodies.push({ route, name, path: pathOf(route, fixtures), options: { ...credentialsFor(route), ...options } });
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

/** Ids no resource has. A reaction is free text (CometChat takes any emoji or word), so only its length is wrong. */
const badIds: Array<{ name: string; value: string; freeText: boolean }> = [
  { name: 'naming nothing', value: 'no-such-thing-here', freeText: false },
  { name: 'past any id’s length', value: 'x'.repeat(300), freeText: true },
  { name: 'with characters no id has', value: 'a b\u00e9<>\'"', freeText: false },
];
const FREE_TEXT_PARAMETERS = new Set(['reaction']);

function badPathsOf(route: RouteSpec): BadRequest[] {
  const parameters = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => name!);
  return parameters.flatMap((parameter) =>
    badIds
      .filter((id) => id.freeText || !FREE_TEXT_PARAMETERS.has(parameter))
      .map((id) => ({ route, name: `${parameter} ${id.name}`, path: pathOf(route, fixtures, { [parameter]: id.value }), options: credentialsFor(route) })),
  );
}

function otherTenantsIdsOf(route: RouteSpec): BadRequest[] {
  const theirs: Record<string, string> = {
    uid: otherTenant.owner,
    guid: otherTenant.guid,
    conversationId: userConversationId(otherTenant.owner, otherTenant.peer),
    sessionId: otherTenant.sessionId,
  };
  const requests: BadRequest[] = [...route.path.matchAll(/:(\w+)/g)]
    .map(([, name]) => name!)
    .filter((parameter) => theirs[parameter] !== undefined)
    .map((parameter) => ({ route, name: `${parameter} of another app`, path: pathOf(route, fixtures, { [parameter]: theirs[parameter]! }), options: credentialsFor(route) }));
  if (route.api === 'chat' && route.onBehalfOf !== 'ignored') {
    requests.push({ route, name: 'acting user of another app', path: pathOf(route, fixtures), options: { ...credentialsFor(route), onBehalfOf: otherTenant.owner } });
  }
  return requests;
}

/** Sends every request and lists those not answered with a 4xx in CometChat's error shape, with a tally of the answers. */
async function unrefused(requests: readonly BadRequest[]): Promise<{ wrong: string[]; tally: Record<string, number> }> {
  const answers = await mapBounded(requests, 8, async (bad) => ({ bad, response: await call(bad.route.method, bad.path, bad.options) }));
  const tally: Record<string, number> = {};
  const wrong: string[] = [];
  for (const { bad, response } of answers) {
    const code: unknown = response.body?.error?.code;
    const refused = response.status >= 400 && response.status < 500 && typeof code === 'string' && typeof response.body?.error?.message === 'string';
    if (!refused) wrong.push(`${bad.route.method} ${bad.route.path} (${bad.route.operationId}): ${bad.name} → ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
    tally[`${response.status} ${String(code)}`] = (tally[`${response.status} ${String(code)}`] ?? 0) + 1;
  }
  return { wrong, tally };
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

/** Sends the requests; each must be refused, and the fixtures must read the same afterwards. */
async function expectAllRefused(kind: string, requests: readonly BadRequest[]): Promise<void> {
  const before = await fixtureState();
  const { wrong, tally } = await unrefused(requests);
  expect(wrong).toEqual([]);
  console.log(`${kind}: ${requests.length} requests refused:`, tally);
  expect(await fixtureState()).toEqual(before);
}

describe('the bad-input matrix (route catalogue × requests no client should send)', () => {
  it('refuses every bad body with a 4xx in CometChat’s error shape, and changes nothing', async () => {
    expect(bodyRoutes.length).toBeGreaterThan(40);
    await expectAllRefused(`bad bodies on ${bodyRoutes.length} operations`, bodyRoutes.flatMap(badBodiesOf));
  });

  it('refuses every bad path parameter with a 4xx in CometChat’s error shape, and changes nothing', async () => {
    const requests = routeCatalog.flatMap(badPathsOf);
    expect(requests.length).toBeGreaterThan(400);
    await expectAllRefused('bad path parameters', requests);
  });

  it('refuses another app’s users, groups, conversations and calls with a 4xx, and changes nothing', async () => {
    const requests = routeCatalog.flatMap(otherTenantsIdsOf);
    expect(requests.length).toBeGreaterThan(100);
    await expectAllRefused('another app’s ids', requests);
  });
});
