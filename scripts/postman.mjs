// Writes docs/postman-collection.json (Postman collection v2.1) from docs/openapi.json: one folder per
// service, one request per operation, with its path variables, query parameters (disabled until given),
// credentials as collection variables, and a body holding the required fields of its request schema.
// Import it into Postman (or Bruno) and set baseUrl, appId, apiKey, managementKey and managementSecret
// (authToken for the realtime event stream).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const COLLECTION_PATH = join(repoRoot, 'docs', 'postman-collection.json');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** A value of the schema's shape: its required fields with empty values of their types, two levels deep. */
function example(schema, depth = 0) {
  if (!schema || typeof schema !== 'object') return null;
  const variant = schema.oneOf?.[0] ?? schema.anyOf?.[0] ?? schema.allOf;
  if (Array.isArray(variant)) return Object.assign({}, ...variant.map((part) => example(part, depth)));
  if (variant) return example(variant, depth);
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    if (depth > 1) return {};
    const required = new Set(schema.required ?? []);
    return Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([name]) => required.has(name)).map(([name, property]) => [name, example(property, depth + 1)]));
  }
  if (type === 'array') return [];
  if (type === 'string') return '';
  if (type === 'integer' || type === 'number') return 0;
  if (type === 'boolean') return false;
  return null;
}

function requestOf(path, method, operation) {
  const parameters = operation.parameters ?? [];
  const segments = path.split('/').filter(Boolean).map((segment) => segment.replace(/^\{(.+)\}$/, ':$1'));
  // The realtime event stream takes the user's auth token in the query string (security scheme realtimeAuthToken).
  const queryToken = operation.security?.some((s) => 'realtimeAuthToken' in s);
  const query = [
    ...(queryToken ? [{ key: 'authToken', value: '{{authToken}}', disabled: false }] : []),
    ...parameters.filter((p) => p.in === 'query').map((p) => ({ key: p.name, value: '', disabled: !p.required })),
  ];
  const header = parameters
    .filter((p) => p.in === 'header')
    .map((p) => ({ key: p.name, value: `{{${p.name}}}`, ...(p.required ? {} : { disabled: p.name !== 'appId' }) }));
  const management = operation.security?.some((s) => 'managementKey' in s);
  const credentials = management
    ? [{ key: 'key', value: '{{managementKey}}' }, { key: 'secret', value: '{{managementSecret}}' }]
    : queryToken
      ? []
      : [{ key: 'apikey', value: '{{apiKey}}' }];
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  return {
    name: operation.operationId,
    request: {
      method: method.toUpperCase(),
      header: [...credentials, ...header, ...(schema ? [{ key: 'content-type', value: 'application/json' }] : [])],
      url: {
        raw: `{{baseUrl}}/${segments.join('/')}${query.length ? `?${query.filter((q) => !q.disabled).map((q) => `${q.key}=${q.value}`).join('&')}` : ''}`,
        host: ['{{baseUrl}}'],
        path: segments,
        ...(query.length ? { query } : {}),
        ...(segments.some((s) => s.startsWith(':')) ? { variable: segments.filter((s) => s.startsWith(':')).map((s) => ({ key: s.slice(1), value: '' })) } : {}),
      },
      ...(schema ? { body: { mode: 'raw', raw: JSON.stringify(example(schema), null, 2), options: { raw: { language: 'json' } } } } : {}),
    },
  };
}

/** The collection of a document: folders by tag (the service), requests in the document's path order. */
export function postmanCollection(document) {
  const folders = new Map();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      // A WebSocket upgrade (101) is no request a v2.1 collection can make: the event stream stands for it.
      if (!operation || operation.responses?.['101']) continue;
      const tag = operation.tags?.[0] ?? 'other';
      if (!folders.has(tag)) folders.set(tag, []);
      folders.get(tag).push(requestOf(path, method, operation));
    }
  }
  return {
    info: { name: document.info.title, description: document.info.description, schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
    variable: ['baseUrl', 'appId', 'apiKey', 'onBehalfOf', 'authToken', 'managementKey', 'managementSecret'].map((key) => ({ key, value: key === 'baseUrl' ? 'http://localhost:3000' : '' })),
    item: [...folders.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, item]) => ({ name, item })),
  };
}

export function collectionText(document) {
  return `${JSON.stringify(postmanCollection(document), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const document = JSON.parse(readFileSync(join(repoRoot, 'docs', 'openapi.json'), 'utf8'));
  writeFileSync(COLLECTION_PATH, collectionText(document));
  const count = postmanCollection(document).item.reduce((sum, folder) => sum + folder.item.length, 0);
  console.log(`wrote ${COLLECTION_PATH}: ${count} requests`);
}
