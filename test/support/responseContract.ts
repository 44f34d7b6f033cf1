import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll } from 'vitest';

/*
 * Every answer the suites receive through the shared client (`call`, api.ts) is checked against the
 * response schema the committed docs/openapi.json gives its operation and status: the description is
 * proved by the tests rather than trusted. An answer that does not match fails the test that got it.
 */

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
}
interface Template {
  method: string;
  pattern: RegExp;
  /** Path parameters: a template with fewer is the more specific (`/conversations/pinned` before `/{conversationId}`). */
  parameters: number;
  operation: Operation;
}

const document = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json> };
};

const templates: Template[] = Object.entries(document.paths)
  .flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      parameters: (path.match(/\{/g) ?? []).length,
      operation,
    })),
  )
  .sort((a, b) => a.parameters - b.parameters);

/** The operation a request is for, by method and path template (the query string left out). */
export function operationFor(method: string, path: string): Operation | undefined {
  const bare = path.split('?')[0] ?? path;
  return templates.find((t) => t.method === method.toUpperCase() && t.pattern.test(bare))?.operation;
}

// Formats (email, uri, …) are checked by the services' zod schemas on the way in; shapes are what this checks.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const compiled = new Map<string, ValidateFunction>();
const tally = { checked: 0, undescribed: new Map<string, number>() };

function validatorFor(operation: Operation, status: number): { key: string; validate: ValidateFunction | null } {
  const response = operation.responses[String(status)] ?? operation.responses['default'];
  let schema = response?.content?.['application/json']?.schema;
  // Error schemas are shared components (one per set of codes); success schemas are inline.
  const ref = schema?.['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) schema = document.components.schemas[ref.slice('#/components/schemas/'.length)];
  const key = `${operation.operationId} ${status}`;
  // `{}`: the operation has no response schema yet (scripts/openapi.mjs lists them).
  if (!schema || Object.keys(schema).length === 0) return { key, validate: null };
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return { key, validate };
}

/** Throws, naming the operation and the mismatch, when `body` is not what the document says `status` answers. */
export function checkResponse(method: string, path: string, status: number, body: unknown): void {
  const operation = operationFor(method, path);
  if (!operation || body === undefined) return;
  const { key, validate } = validatorFor(operation, status);
  if (!validate) {
    tally.undescribed.set(key, (tally.undescribed.get(key) ?? 0) + 1);
    return;
  }
  tally.checked += 1;
  if (!validate(body)) {
    const mismatch = ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' });
    throw new Error(`response of ${operation.operationId} (${method} ${path} → ${status}) does not match docs/openapi.json: ${mismatch}\n${JSON.stringify(body).slice(0, 2_000)}`);
  }
}

/**
 * `fetch`, with every JSON answer checked like `call`'s: for requests `call` cannot make (a multipart
 * form, bytes compared as sent, a client package given a fetch) and suites that read headers and body
 * as they come. The caller still reads the whole response.
 */
export const checkedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  if (response.headers.get('content-type')?.includes('application/json')) {
    const text = await response.clone().text();
    if (text) checkResponse(method, url.pathname, response.status, JSON.parse(text));
  }
  return response;
};

afterAll(() => {
  if (tally.checked === 0 && tally.undescribed.size === 0) return;
  const skipped = [...tally.undescribed.entries()].map(([key, count]) => `${key} ×${count}`).join(', ');
  console.log(`[openapi] ${tally.checked} responses matched their schema; ${[...tally.undescribed.values()].reduce((a, b) => a + b, 0)} skipped (no schema yet)${skipped ? `: ${skipped}` : ''}`);
});
