import { existsSync, readFileSync } from 'node:fs';
import { internalHeaders, openApiDocument, openApiPath, routeCatalog } from '@chat/contracts';
import type { RouteSpec } from '@chat/contracts';
import { describe, expect, inject, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import * as calls from '../services/calls/src/http/openapi.js';
import * as conversations from '../services/conversations/src/http/openapi.js';
import * as management from '../services/management/src/http/openapi.js';
import * as messages from '../services/messages/src/http/openapi.js';
import * as notifications from '../services/notifications/src/http/openapi.js';
import * as users from '../services/users/src/http/openapi.js';
import * as webhooks from '../services/webhooks/src/http/openapi.js';
import { checkResponse, operationFor } from './support/responseContract.js';

const services = [users, conversations, messages, calls, management, webhooks, notifications];
const requests = Object.assign({}, ...services.map((s) => s.requestSchemas)) as Parameters<typeof openApiDocument>[0];
const responses = Object.assign({}, ...services.map((s) => s.responseSchemas)) as Parameters<typeof openApiDocument>[1];

/** Writes that parse no body: a path names everything they act on. */
const BODILESS_WRITES = [
  'ban-group-user',
  'pin-user-conversation',
  'pin-group-conversation',
  'pin-message',
  'add-message-reactions',
  'notifications-push-default-fcm-provider',
  'notifications-push-default-apns-provider',
  'rotate-webhook-secret',
  'redeliver-webhook-delivery',
  'save-message',
  'subscribe-thread',
];

/** Operations without a response schema: none; a new operation must come with one. */
const UNDESCRIBED_RESPONSES: string[] = [];

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
    const generated = openApiDocument(requests, responses);
    expect(JSON.parse(committedText)).toEqual(generated);
  });

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(committedText) as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The validator can fail: a response without its description is not OpenAPI.
    const broken = JSON.parse(committedText) as { paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>> };
    delete broken.paths['/v3/users']?.['get']?.responses['200']?.['description'];
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('describes a body for every write that parses one, and a response schema for every operation', () => {
    const document = JSON.parse(committedText) as { paths: Record<string, Record<string, { operationId: string; requestBody?: unknown; responses: Record<string, { content?: Record<string, { schema?: object }> }> }>> };
    const operations = Object.values(document.paths).flatMap((item) => Object.entries(item));
    const bodiless = operations.filter(([method, op]) => method !== 'get' && method !== 'delete' && !op.requestBody).map(([, op]) => op.operationId);
    expect(bodiless.sort()).toEqual([...BODILESS_WRITES].sort());
    // The realtime channel answers a WebSocket upgrade (101) or an event stream, not JSON: its frames are in docs/asyncapi.json.
    const realtime = operations.filter(([, op]) => op.operationId.startsWith('realtime-')).map(([, op]) => op.operationId);
    expect(realtime.sort()).toEqual(['realtime-connect', 'realtime-events']);
    const undescribed = operations
      .filter(([, op]) => !realtime.includes(op.operationId))
      .filter(([, op]) => Object.keys(op.responses['200']?.content?.['application/json']?.schema ?? op.responses['201']?.content?.['application/json']?.schema ?? {}).length === 0)
      .map(([, op]) => op.operationId);
    console.log(`[openapi] ${operations.length} operations, ${undescribed.length} without a response schema yet: ${undescribed.join(', ')}`);
    expect(undescribed.sort()).toEqual([...UNDESCRIBED_RESPONSES].sort());
    // Every error answer is CometChat's shape, with the codes its status can carry.
    const getUser = document.paths['/v3/users/{uid}']?.['get']?.responses;
    expect(Object.keys(getUser ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '404', 'default']));
    expect(JSON.stringify(getUser?.['404'])).toContain('ERR_UID_NOT_FOUND');
  });

  it('checks an answer against its operation (method + path template), naming the operation and the mismatch', () => {
    expect(operationFor('GET', '/v3/conversations/pinned?x=1')?.operationId).toBe('list-global-pinned-conversations');
    expect(operationFor('GET', '/v3/conversations/user_a_b')?.operationId).toBe('get-conversation');
    expect(operationFor('GET', '/apps/a1/webhooks/w1/triggers')?.operationId).toBe('list-triggers');
    const user = { uid: 'u1', name: 'U', status: 'offline', role: 'default', createdAt: 1, updatedAt: 1 };
    expect(() => checkResponse('GET', '/v3/users/u1', 200, { data: user })).not.toThrow();
    expect(() => checkResponse('GET', '/v3/users/u1', 200, { data: { ...user, createdAt: 'yesterday' } })).toThrow(/get-user .*createdAt/);
    expect(() => checkResponse('GET', '/v3/users/u1', 404, { error: { code: 'ERR_UID_NOT_FOUND', message: 'no' } })).not.toThrow();
    expect(() => checkResponse('GET', '/v3/users/u1', 404, { error: { code: 'ERR_GUID_NOT_FOUND', message: 'no' } })).toThrow(/get-user/);
    expect(() => checkResponse('GET', '/v3/users/u1', 404, { message: 'no' })).toThrow(/get-user/);
    // The realtime channel's refusals are JSON in CometChat's shape, checked like any other answer.
    expect(operationFor('GET', '/v3/realtime/events?appId=a&authToken=t')?.operationId).toBe('realtime-events');
    expect(() => checkResponse('GET', '/v3/realtime/events?appId=a', 401, { error: { code: 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND', message: 'no' } })).not.toThrow();
    expect(() => checkResponse('GET', '/v3/realtime/events?appId=a', 401, { error: { code: 'AUTH_ERR_APIKEY_NOT_FOUND', message: 'no' } })).toThrow(/realtime-events/);
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

interface CometChatIndex {
  files: string[];
  operations: Array<{ operationId: string }>;
}
/** The scripts are plain ES modules run by node; imported here by URL so their output can be compared. */
const differencesScript = (await import(new URL('../scripts/openapi-differences.mjs', import.meta.url).href)) as {
  differencesReport: (document: unknown, index: CometChatIndex) => { text: string; onlyTheirs: number };
};
const indexScript = (await import(new URL('../scripts/cometchat-index.mjs', import.meta.url).href)) as {
  cometChatIndex: (referenceDir: string) => CometChatIndex;
  indexText: (index: CometChatIndex) => string;
};
const postmanScript = (await import(new URL('../scripts/postman.mjs', import.meta.url).href)) as {
  collectionText: (document: unknown) => string;
};
const committedIndexText = readFileSync(new URL('../docs/reference/cometchat-operations.json', import.meta.url), 'utf8');
/** CometChat's own files: beside the checkout on a developer's machine and in CI, absent elsewhere. */
const referenceDir = new URL('../../shared/api/openapi', import.meta.url).pathname;

describe('the differences from CometChat\'s description', () => {
  it('docs/openapi-differences.md is what scripts/openapi-differences.mjs makes of the committed document and index (run it after `npm run openapi`)', () => {
    const report = differencesScript.differencesReport(JSON.parse(committedText), JSON.parse(committedIndexText) as CometChatIndex);
    expect(readFileSync(new URL('../docs/openapi-differences.md', import.meta.url), 'utf8')).toBe(report.text);
    // Every operation of CometChat's files is served (one they describe twice is matched by method and path).
    expect(report.onlyTheirs).toBe(0);
  });

  it.skipIf(!existsSync(referenceDir))('the committed index is what scripts/cometchat-index.mjs extracts from ../shared/api/openapi', () => {
    const index = indexScript.cometChatIndex(referenceDir);
    expect(index.operations.length).toBeGreaterThan(100);
    expect(committedIndexText).toBe(indexScript.indexText(index));
  });
  if (!existsSync(referenceDir)) console.log(`[openapi] ${referenceDir} is absent: the index is not compared with CometChat's files`);
});

describe('the Postman collection', () => {
  it('is what scripts/postman.mjs makes of the committed document: a request per operation, with credentials as variables', () => {
    const committed = readFileSync(new URL('../docs/postman-collection.json', import.meta.url), 'utf8');
    expect(committed).toBe(postmanScript.collectionText(JSON.parse(committedText)));
    const collection = JSON.parse(committed) as {
      item: Array<{ item: Array<{ name: string; request: { method: string; header: Array<{ key: string }>; url: { query?: Array<{ key: string; value: string }> } } }> }>;
    };
    const requests = collection.item.flatMap((folder) => folder.item);
    // The realtime event stream too (the WebSocket upgrade is no request a collection can make).
    expect(requests.map((r) => r.name).sort()).toEqual([...routeCatalog.map((route) => route.operationId), 'realtime-events'].sort());
    const events = requests.find((r) => r.name === 'realtime-events');
    expect(events?.request.header.map((h) => h.key)).not.toContain('apikey');
    expect(events?.request.url.query).toContainEqual(expect.objectContaining({ key: 'authToken', value: '{{authToken}}' }));
    const createApp = requests.find((r) => r.name === 'create-app');
    expect(createApp?.request.header.map((h) => h.key)).toEqual(expect.arrayContaining(['key', 'secret']));
    expect(requests.find((r) => r.name === 'send-message')?.request.header.map((h) => h.key)).toContain('apikey');
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
