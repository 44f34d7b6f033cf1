import { routeCatalog, userConversationId } from '@chat/contracts';
import type { RouteSpec } from '@chat/contracts';
import { converse, createApp, createUser } from './api.js';
import type { TestApp } from './api.js';
import { done } from './messages.js';

/**
 * One app with something behind every path parameter of the route catalogue: users `owner` (the
 * group's owner and the usual acting user) and `peer`, a group, a one-on-one message, a role. Built
 * once per test file; tests that change things work on copies they create themselves.
 */
export interface RouteFixtures {
  app: TestApp;
  owner: string;
  peer: string;
  guid: string;
  messageId: string;
  /** A call between `owner` and `peer` (one call message). */
  sessionId: string;
}

/** `prefix` names the fixtures apart from another app's (for tests that use one app's ids with another's key). */
export async function createRouteFixtures(name: string, prefix = ''): Promise<RouteFixtures> {
  const app = await createApp(name);
  const [owner, peer, guid] = [`${prefix}owner`, `${prefix}peer`, `${prefix}fixture-group`];
  for (const uid of [owner, peer]) await createUser(app, uid);
  await done(app.call('POST', '/v3/groups', { body: { guid, name: 'Fixture', type: 'public', owner } }));
  const messageId = (await converse(app, owner, peer, 'fixture')).body.data.id as string;
  const sessionId = `${prefix}fixture-call`;
  const call = { receiver: peer, receiverType: 'user', category: 'call', type: 'audio', data: { action: 'initiated', sessionId } };
  await done(app.call('POST', '/v3/messages', { onBehalfOf: owner, body: call }));
  return { app, owner, peer, guid, messageId, sessionId };
}

/** Values for the catalogue's path parameters that name something the fixtures created. */
export function pathOf(route: RouteSpec, fixtures: RouteFixtures, overrides: Record<string, string> = {}): string {
  const values: Record<string, string> = {
    uid: route.path.startsWith('/users/:uid/messages') || route.path.startsWith('/users/:uid/conversation') ? fixtures.peer : fixtures.owner,
    guid: fixtures.guid,
    id: fixtures.messageId,
    reaction: 'heart',
    role: 'default',
    scope: 'participant',
    permission: 'sendMessage',
    conversationId: userConversationId(fixtures.owner, fixtures.peer),
    authToken: 'unknown-token',
    apiKey: 'unknown-key',
    appId: fixtures.app.appId,
    sessionId: fixtures.sessionId,
    ...overrides,
  };
  const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? name));
  return route.api === 'chat' ? `/v3${path}` : path;
}

export function routeOf(operationId: string): RouteSpec {
  const route = routeCatalog.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no route ${operationId} in the catalogue`);
  return route;
}
