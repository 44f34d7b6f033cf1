import { setTimeout as sleep } from 'node:timers/promises';
import { operationGates, routeCatalog } from '@chat/contracts';
import type { RouteSpec } from '@chat/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createApp, createUser, eventually, managementHeaders } from './support/api.js';
import type { ApiResponse, RequestOptions, TestApp } from './support/api.js';
import { mapBounded } from './support/concurrency.js';
import { done, sendMessage, text } from './support/messages.js';
import { createRouteFixtures, pathOf } from './support/routeFixtures.js';
import type { RouteFixtures } from './support/routeFixtures.js';

/**
 * The auth matrix, generated from the route catalogue: every route × every way a caller can lack the
 * right to call it. Each refusal is compared with the same call made with the right credentials,
 * which must get past that check (any answer but this refusal). Fixtures are built once; requests
 * run with bounded concurrency. The refusals change nothing, so they all run before the successes.
 */

interface Case {
  route: RouteSpec;
  name: string;
  /** The call that must be refused, and the same call with the right credentials. */
  refused: RequestOptions;
  allowed: RequestOptions;
  /** Path parameters for both calls (e.g. a group message for scope denials). */
  pathOverrides?: Record<string, string>;
  status: number;
  code: string;
}

let fixtures: RouteFixtures;
let other: TestApp;
let revokedKey: string;
/** Auth tokens of the fixtures' usual acting user (client access, ADR 0070): a live one and a deleted one. */
let ownerToken: string;
let revokedToken: string;
/** A group message by `pat`, a participant whose scope is denied every member action. */
let groupMessageId: string;

/** Operations the group's scope permissions gate, with the action each needs (services/messages). */
const scopeGated: Record<string, string> = {
  'send-message': 'sendMessage',
  'send-thread-message': 'sendThreadedMessage',
  'update-message': 'editMessage',
  'add-message-reactions': 'addReaction',
  'list-all-reactions': 'listReactions',
  'get-message-reactions': 'listReactions',
};

beforeAll(async () => {
  fixtures = await createRouteFixtures('auth matrix');
  const { app, guid } = fixtures;
  other = await createApp('auth matrix other');
  const created = await done(app.call('POST', '/v3/apikeys', { body: { name: 'revoked', scope: 'fullAccess' } }));
  revokedKey = created.body.data.apiKey as string;
  await done(app.call('DELETE', `/v3/apikeys/${revokedKey}`));
  const issueToken = async () => (await done(app.call('POST', `/v3/users/${fixtures.owner}/auth_tokens`, { body: {} }))).body.data.authToken as string;
  [ownerToken, revokedToken] = [await issueToken(), await issueToken()];
  await done(app.call('DELETE', `/v3/users/${fixtures.owner}/auth_tokens/${revokedToken}`));
  // A role that every gate denies.
  await done(app.call('POST', '/v3/roles', { body: { role: 'locked', name: 'Locked' } }));
  const features = [...new Set(Object.values(operationGates).flatMap((gate) => (gate.feature ? [gate.feature] : [])))];
  await done(app.call('POST', '/v3/roles/locked/restrictedfeatures', { body: { featuresToRestrict: features } }));
  const permissions = [...new Set(Object.values(operationGates).flatMap((gate) => gate.permissions))];
  await done(app.call('PUT', '/v3/roles/locked/permissions', { body: { permissions: Object.fromEntries(permissions.map((id) => [id, 'deny'])) } }));
  await done(app.call('POST', '/v3/users', { body: { uid: 'locked', name: 'Locked', role: 'locked' } }));
  // A participant denied every member action in the group.
  await createUser(app, 'pat');
  await createUser(app, 'throwaway');
  await done(app.call('POST', `/v3/groups/${guid}/members`, { body: { participants: ['pat'] } }));
  groupMessageId = (await eventually(() => sendMessage(app, 'pat', text(guid, 'mine', 'group')), (r) => r.status === 200)).body.data.id;
  const denied = Object.fromEntries([...new Set(Object.values(scopeGated))].map((action) => [action, 'deny']));
  await done(app.call('PUT', `/v3/groups/${guid}/scopes/participant/permissions`, { body: { permissions: denied } }));
  await eventually(() => sendMessage(app, 'pat', text(guid, 'denied?', 'group')), (r) => r.status === 403);
  await sleep(1_000); // the revoked key's (and token's) cache entries expire
});

function casesOf(route: RouteSpec): Case[] {
  const { app, owner } = fixtures;
  const actor = route.onBehalfOf === 'ignored' ? {} : { onBehalfOf: owner };
  const full: RequestOptions = { appId: app.appId, apiKey: app.fullAccessKey, ...actor };
  const cases: Case[] = [];
  const add = (name: string, refused: RequestOptions, status: number, code: string, allowed = full, pathOverrides?: Record<string, string>) =>
    cases.push({ route, name, refused, allowed, status, code, ...(pathOverrides ? { pathOverrides } : {}) });
  if (route.api === 'management') {
    const management = { headers: managementHeaders() };
    add('no credentials', {}, 401, 'AUTH_ERR_EMPTY_AUTH_HEADER', management);
    add('bad secret', { headers: { ...managementHeaders(), secret: 'wrong' } }, 401, 'AUTH_ERR_INVALID_CREDENTIALS', management);
    return cases;
  }
  add('no key', { ...full, apiKey: null }, 401, 'AUTH_ERR_EMPTY_APIKEY');
  add('bad key', { ...full, apiKey: 'f'.repeat(40) }, 401, 'AUTH_ERR_APIKEY_NOT_FOUND');
  add('other app’s key', { ...full, apiKey: other.fullAccessKey }, 401, 'AUTH_ERR_APIKEY_NOT_FOUND');
  add('revoked key', { ...full, apiKey: revokedKey }, 401, 'AUTH_ERR_APIKEY_NOT_FOUND');
  if (route.scope === 'fullAccess') add('authOnly key', { ...full, apiKey: app.authOnlyKey }, 403, 'AUTH_ERR_NO_ACCESS');
  if (route.onBehalfOf === 'required') add('missing onBehalfOf', { ...full, onBehalfOf: undefined }, 400, 'ERR_EMPTY_ON_BEHALF_OF');
  if (route.onBehalfOf !== 'ignored') add('unknown onBehalfOf', { ...full, onBehalfOf: 'nobody-here' }, 404, 'ERR_UID_NOT_FOUND');
  if (Object.hasOwn(operationGates, route.operationId)) add('role denied', { ...full, onBehalfOf: 'locked' }, 403, 'ERR_PERMISSION_DENIED');
  // A client with the owner's auth token: refused on the app's operations; on a user's, only with a
  // token that is not live or an onBehalfOf naming another user.
  const asClient = (token: string, extra: RequestOptions = {}): RequestOptions => ({ appId: app.appId, apiKey: null, headers: { authtoken: token }, ...extra });
  if (route.client === 'app') add('authtoken on the app’s operation', asClient(ownerToken), 403, 'AUTH_ERR_NO_ACCESS');
  else {
    add('revoked authtoken', asClient(revokedToken), 401, 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND', asClient(ownerToken));
    add('authtoken acting for another user', asClient(ownerToken, { onBehalfOf: fixtures.peer }), 403, 'AUTH_ERR_NO_ACCESS', asClient(ownerToken));
  }
  if (scopeGated[route.operationId] !== undefined) {
    // The group's admin may do what the participant may not.
    add('group scope denied', { ...full, onBehalfOf: 'pat' }, 403, 'ERR_PERMISSION_DENIED', full, { id: groupMessageId });
  }
  return cases;
}

/** A body that names the group for sends, so scope permissions apply; other calls send an empty object. */
function bodyOf(route: RouteSpec, c: Case): unknown {
  if (route.operationId === 'send-message' && c.name === 'group scope denied') return text(fixtures.guid, 'x', 'group');
  if (route.operationId === 'send-message') return text(fixtures.peer, 'x');
  if (route.operationId === 'send-thread-message') return { data: { text: 'reply' } };
  if (route.operationId === 'update-message') return { data: { text: 'edited' } };
  return route.method === 'GET' ? undefined : {};
}

function send(c: Case, options: RequestOptions): Promise<ApiResponse> {
  const path = pathOf(c.route, fixtures, c.pathOverrides);
  const body = bodyOf(c.route, c);
  const clean: RequestOptions = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return call(c.route.method, path, { ...clean, ...(body !== undefined ? { body } : {}) });
}

/** Routes whose successful call would destroy a fixture another case needs; their success runs on a copy. */
const destructive = new Set([
  'delete-user',
  'delete-group',
  'kick-group-member',
  'ban-group-user',
  'delete-apikey',
  'update-apikey',
  'delete-app',
  // They would revoke the auth token the client cases use.
  'flush-authtokens',
  'delete-authtoken',
]);

describe('auth matrix (route catalogue × refusals)', () => {
  it('refuses every call that lacks a right, and lets the same call with the right through', async () => {
    const cases = routeCatalog.flatMap(casesOf);
    console.log(`auth matrix: ${routeCatalog.length} routes × refusals = ${cases.length} refusal cases (+ ${cases.length} successes)`);
    const refusals = await mapBounded(cases, 8, async (c) => {
      const r = await send(c, c.refused);
      const ok = r.status === c.status && r.body?.error?.code === c.code;
      return ok ? null : `${c.route.method} ${c.route.path} [${c.name}]: ${r.status} ${JSON.stringify(r.body)}`;
    });
    const successes = await mapBounded(cases, 8, async (c) => {
      const allowed = destructive.has(c.route.operationId) ? { ...c, pathOverrides: { uid: 'throwaway', guid: 'no-such-group', apiKey: 'f'.repeat(40), appId: 'no-such-app' } } : c;
      const r = await send(allowed, c.allowed);
      const stillRefused = r.body?.error?.code === c.code;
      return stillRefused || r.status >= 500 ? `${c.route.method} ${c.route.path} [${c.name}, with the right credentials]: ${r.status} ${JSON.stringify(r.body)}` : null;
    });
    expect([...refusals, ...successes].filter((p) => p !== null)).toEqual([]);
    expect(cases.length).toBeGreaterThan(routeCatalog.length * 5);
  }, 180_000);
});
