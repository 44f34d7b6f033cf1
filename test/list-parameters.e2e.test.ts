import { listParameters } from '@chat/contracts';
import type { CataloguedParameter } from '@chat/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, managementHeaders } from './support/api.js';
import type { ApiResponse } from './support/api.js';
import { mapBounded } from './support/concurrency.js';
import { createRouteFixtures, pathOf, routeOf } from './support/routeFixtures.js';
import type { RouteFixtures } from './support/routeFixtures.js';

/**
 * Generated from the catalogue (`listParameters`, from endpoints.tsv): every documented query
 * parameter of every list, sent with a valid value, must be honoured (200); sent with a value of the
 * wrong type it must be refused with a 400 naming it; and a parameter no list knows is refused too.
 */

/**
 * Where the catalogue's type is wrong, the type clients actually send (see docs/behaviour/messages.md;
 * `list-rules` documents its page size `limit` as a string, every other list as an integer).
 */
const actualType: Record<string, CataloguedParameter['type']> = { mentionedUids: 'array', limit: 'integer' };

let fixtures: RouteFixtures;

beforeAll(async () => {
  fixtures = await createRouteFixtures('list parameters');
});

/** Values the catalogue does not enumerate but the list only takes from a fixed set. */
const validFor: Record<string, Record<string, string>> = {
  'list-groups': { searchIn: 'name', types: 'public' },
  'list-all-conversations': { conversationType: 'user' },
  'list-group-members': { scopes: 'participant' },
};

/** Parameters an operation requires (CometChat marks `/stats`'s range required): sent beside the one tested. */
const requiredAlongside: Record<string, Record<string, string>> = {
  'usage-metrics': { fromDate: '1', toDate: '2' },
};

/** The query for one tested parameter, with the operation's other required parameters beside it. */
function queryWith(operationId: string, name: string, value: string): string {
  const others = Object.entries(requiredAlongside[operationId] ?? {}).filter(([other]) => other !== name);
  return [[name, value] as const, ...others].map(([key, given]) => `${key}=${encodeURIComponent(given)}`).join('&');
}

function validValue(operationId: string, p: CataloguedParameter): string {
  const named: Record<string, string> = {
    ...validFor[operationId],
    id: fixtures.messageId,
    sender: fixtures.owner,
    mentionedUids: fixtures.peer,
    role: 'default',
    roles: 'default',
    conversationId: 'x',
    affix: 'append',
    category: 'message',
    categories: 'message',
    // Ours (ADR 0033): a conversation's list as of a time (epoch second 1: before anything was sent).
    asOf: '1',
  };
  if (named[p.name] !== undefined) return named[p.name] as string;
  if (p.enum) return p.enum[0] as string;
  const type = actualType[p.name] ?? p.type;
  if (type === 'boolean') return 'true';
  return type === 'integer' ? '1' : 'a';
}

/** A value of the wrong type, or undefined where any text is valid (a free string or list). */
function wrongValue(p: CataloguedParameter): string | undefined {
  const type = actualType[p.name] ?? p.type;
  if (p.name === 'mentionedUids') return 'not a uid!';
  if (p.enum) return 'not-one-of-them';
  if (type === 'boolean') return 'maybe';
  if (type === 'integer') return 'many';
  return undefined;
}

function request(operationId: string, query: string): Promise<ApiResponse> {
  const route = routeOf(operationId);
  // A list below a key (the audit trail) is listed for a key that exists.
  const path = `${pathOf(route, fixtures, { apiKey: fixtures.app.fullAccessKey })}?${query}`;
  if (route.api === 'management') return call('GET', path, { headers: managementHeaders() });
  return fixtures.app.call('GET', path, route.onBehalfOf === 'ignored' ? {} : { onBehalfOf: fixtures.owner });
}

const cases = Object.entries(listParameters).flatMap(([operationId, parameters]) => parameters.map((parameter) => ({ operationId, parameter })));

describe('every catalogued query parameter of every list', () => {
  it(`is honoured with a valid value and refused, named, with a wrong one (${cases.length} parameters)`, async () => {
    const problems = await mapBounded(cases, 6, async ({ operationId, parameter }) => {
      const found: string[] = [];
      const name = parameter.name;
      const valid = validValue(operationId, parameter);
      const ok = await request(operationId, queryWith(operationId, name, valid));
      if (ok.status !== 200) found.push(`${operationId} ${name}=${valid}: ${ok.status} ${JSON.stringify(ok.body)}`);
      const wrong = wrongValue(parameter);
      if (wrong !== undefined) {
        const refused = await request(operationId, queryWith(operationId, name, wrong));
        const message = String(refused.body?.error?.message ?? '');
        if (refused.status !== 400 || !message.includes(name)) found.push(`${operationId} ${name}=${wrong}: ${refused.status} ${message}`);
      }
      return found;
    });
    expect(problems.flat()).toEqual([]);
  }, 120_000);

  it('takes an opaque `cursor` on every page-numbered list, and refuses a bad one naming it (docs/behaviour/pagination.md)', async () => {
    // The conversation message lists page by message id (`id`, `affix`), not by number: no `cursor` there.
    // Usage metrics are a report over a time range, not a list: no pages, so no `cursor` either.
    const idPaged = new Set(['list-all-messages', 'user-list-group-messages', 'usage-metrics']);
    const answers = await mapBounded(Object.keys(listParameters), 6, async (operationId) => {
      const refused = await request(operationId, 'cursor=bm9wZQ');
      const named = refused.status === 400 && String(refused.body?.error?.message ?? '').includes('cursor');
      if (idPaged.has(operationId)) return `${operationId}: ${named}`;
      const first = await request(operationId, 'perPage=1');
      const next: unknown = first.body?.meta?.cursor?.next;
      const followed = typeof next === 'string' ? (await request(operationId, `perPage=1&cursor=${next}`)).status : 'last page';
      return `${operationId}: ${named} ${first.status} ${next === null || followed === 200}`;
    });
    expect(answers).toEqual(Object.keys(listParameters).map((operationId) => `${operationId}: true${idPaged.has(operationId) ? '' : ' 200 true'}`));
  });

  it('refuses a parameter the list does not know, naming it, on every list', async () => {
    const answers = await mapBounded(Object.keys(listParameters), 6, async (operationId) => {
      const r = await request(operationId, 'noSuchFilter=true');
      return `${operationId}: ${r.status} ${String(r.body?.error?.message ?? '').includes('noSuchFilter')}`;
    });
    expect(answers).toEqual(Object.keys(listParameters).map((operationId) => `${operationId}: 400 true`));
  });
});
