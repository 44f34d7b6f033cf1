import { readFileSync } from 'node:fs';
import { internalHeaders, openApiDocument, openApiPath, routeCatalog } from '@chat/contracts';
import type { RouteSpec } from '@chat/contracts';
import { describe, expect, inject, it } from 'vitest';
import { requestSchemas as conversations } from '../services/conversations/src/http/openapi.js';
import { requestSchemas as management } from '../services/management/src/http/openapi.js';
import { requestSchemas as messages } from '../services/messages/src/http/openapi.js';
import { requestSchemas as notifications } from '../services/notifications/src/http/openapi.js';
import { requestSchemas as users } from '../services/users/src/http/openapi.js';
import { requestSchemas as webhooks } from '../services/webhooks/src/http/openapi.js';

const committedText = readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8');

/** A service's catch-all answer for a path it has no route for (`notFound` in @chat/http). */
const UNMOUNTED = /^No operation /;

/** Calls a service directly, as the gateway would forward a request, with made-up ids: nothing real is touched. */
async function callService(route: Pick<RouteSpec, 'api' | 'method' | 'path' | 'service'>): Promise<{ status: number; message: string }> {
  const path = `${route.api === 'chat' ? '/v3' : ''}${route.path.replace(/:(\w+)/g, (_, name: string) => `mount-check-${name.toLowerCase()}`)}`;
  const response = await fetch(`${inject('serviceUrls')[route.service]}${path}`, {
    method: route.method,
    headers: {
      'content-type': 'application/json',
      [internalHeaders.appId]: 'mountcheck',
      [internalHeaders.keyId]: 'mount-check',
      [internalHeaders.scope]: 'fullAccess',
      [internalHeaders.onBehalfOf]: 'mount-check-user',
      [internalHeaders.management]: '1',
      [internalHeaders.requestId]: 'mount-check',
    },
    ...(route.method === 'GET' ? {} : { body: '{}' }),
  });
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  return { status: response.status, message: body.error?.message ?? '' };
}

describe('the OpenAPI description', () => {
  it('is the one the route catalogue and the services\' schemas generate (run `npm run openapi` after changing either)', () => {
    const generated = openApiDocument({ ...users, ...conversations, ...messages, ...management, ...webhooks, ...notifications });
    expect(JSON.parse(committedText)).toEqual(generated);
  });

  it('describes every catalogued operation once, with its path parameters and a body for the writes that parse one', () => {
    const document = JSON.parse(committedText) as { paths: Record<string, Record<string, { operationId: string; parameters: Array<{ name: string; in: string }>; requestBody?: unknown }>> };
    for (const route of routeCatalog) {
      const operation = document.paths[openApiPath(route)]?.[route.method.toLowerCase()];
      expect(operation?.operationId, `${route.method} ${route.path}`).toBe(route.operationId);
      const pathNames = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => name);
      expect(operation?.parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(pathNames);
    }
    expect(document.paths['/v3/users']?.['post']?.requestBody).toBeDefined();
    expect(document.paths['/v3/messages']?.['post']?.requestBody).toBeDefined();
  });

  it('is served by the gateway at /openapi.json, with a docs page that reads it', async () => {
    const gateway = inject('gatewayUrl');
    const served = await fetch(`${gateway}/openapi.json`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toContain('application/json');
    expect(await served.json()).toEqual(JSON.parse(committedText));
    const page = await fetch(`${gateway}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain("fetch('/openapi.json')");
  });
});

describe('the route catalogue', () => {
  it('names only operations their service mounts', async () => {
    // The check itself can fail: a path no service has is answered by the catch-all.
    const control = await callService({ api: 'chat', method: 'GET', path: '/no-such-collection/:id', service: 'users' });
    expect(control.status).toBe(404);
    expect(control.message).toMatch(UNMOUNTED);

    const unmounted: string[] = [];
    for (const route of routeCatalog) {
      const { status, message } = await callService(route);
      if (status === 404 && UNMOUNTED.test(message)) unmounted.push(`${route.method} ${route.path} (${route.service})`);
    }
    expect(unmounted).toEqual([]);
  }, 120_000);
});
