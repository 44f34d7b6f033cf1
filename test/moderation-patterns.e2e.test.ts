import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carryingTokens, createApp, createUser } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { done, sendMessage, text } from './support/messages.js';
import { expectError } from './support/users.js';

// ADR 0037: patterns run on RE2 with a budget per send, so no tenant's pattern stalls the shared send path.
let attacker: TestApp;
let bystander: TestApp;

/** A send's answer time: far above a send's usual latency here, far below a backtracking engine's minutes. */
const SEND_BOUND_MS = 3_000;

async function timed(response: Promise<ApiResponse>): Promise<{ response: ApiResponse; ms: number }> {
  const started = performance.now();
  const answered = await response;
  return { response: answered, ms: performance.now() - started };
}

beforeAll(async () => {
  attacker = carryingTokens(await createApp('catastrophic patterns'));
  bystander = carryingTokens(await createApp('bystander'));
  await Promise.all([createUser(attacker, 'mallory'), createUser(attacker, 'victim'), createUser(bystander, 'alice'), createUser(bystander, 'bob')]);
});

afterAll(async () => {
  await attacker.call('DELETE', '/v3/moderation/rules/hang');
  await attacker.call('DELETE', '/v3/moderation/rules/hang-list');
});

describe('catastrophic moderation patterns', () => {
  it('a saved (a+)+$ rule and a pattern list with (x+x+)+y judge attack strings promptly; another app sends promptly after them', async () => {
    await done(
      attacker.call('POST', '/v3/moderation/rules', {
        body: { id: 'hang', name: 'hang', action: ['blockMessage'], conditions: [{ operand: 'text', operator: 'contains', category: 'pattern', value: ['(a+)+$'] }] },
      }),
    );
    await done(attacker.call('POST', '/v3/moderation/keywords', { body: { id: 'evil', name: 'evil', category: 'pattern', searchTerms: ['(x+x+)+y', '(\\w+\\s?)+$'] } }));
    await done(
      attacker.call('POST', '/v3/moderation/rules', {
        body: { id: 'hang-list', name: 'hang list', action: ['flagMessage'], conditions: [{ operand: 'text', operator: 'contains', isKeywordsReferencePresent: true, value: ['evil'] }] },
      }),
    );

    for (const attack of ['a'.repeat(40) + '!', 'a'.repeat(10_000) + '!', 'x'.repeat(10_000) + '!']) {
      const { response, ms } = await timed(sendMessage(attacker, 'mallory', text('victim', attack)));
      expect(response.status, `a ${attack.length}-character attack`).toBeLessThan(500);
      expect(ms).toBeLessThan(SEND_BOUND_MS);
    }
    // The rule still works: a text it matches is blocked, through the same engine.
    expectError(await sendMessage(attacker, 'mallory', text('victim', 'baaaa')), 403, 'ERR_BLOCKED_BY_EXTENSION', 'hang');

    const { response, ms } = await timed(sendMessage(bystander, 'alice', text('bob', 'hello after the attack')));
    expect(response.status).toBe(200);
    expect(ms).toBeLessThan(SEND_BOUND_MS);
  });

  it('refuses back-references and look-around at save time, naming the field, and stores nothing', async () => {
    const rule = await attacker.call('POST', '/v3/moderation/rules', {
      body: { id: 'backref', name: 'backref', action: ['blockMessage'], conditions: [{ operand: 'text', category: 'pattern', value: ['spam', '(a)\\1'] }] },
    });
    expectError(rule, 400, 'ERR_BAD_REQUEST', 'conditions.0.value.1');
    const list = await attacker.call('POST', '/v3/moderation/keywords', { body: { id: 'lookahead', name: 'lookahead', category: 'pattern', searchTerms: ['ok', 'a(?=b)'] } });
    expectError(list, 400, 'ERR_BAD_REQUEST', 'searchTerms.1');
    expect((await attacker.call('GET', '/v3/moderation/rules/backref')).status).toBe(404);
    expect((await attacker.call('GET', '/v3/moderation/keywords/lookahead')).status).toBe(404);
  });

  it('refuses a rule that takes the app past 500 pattern terms (250 + 251 here), naming the field; nothing is stored', async () => {
    const terms = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}\\d+`);
    await done(attacker.call('POST', '/v3/moderation/keywords', { body: { id: 'many-a', name: 'many a', category: 'pattern', searchTerms: terms('a', 250) } }));
    await done(attacker.call('POST', '/v3/moderation/keywords', { body: { id: 'many-b', name: 'many b', category: 'pattern', searchTerms: terms('b', 251) } }));
    const over = await attacker.call('POST', '/v3/moderation/rules', {
      body: { id: 'too-many', name: 'too many', action: ['flagMessage'], conditions: [{ operand: 'text', isKeywordsReferencePresent: true, value: ['many-a', 'many-b'] }] },
    });
    expectError(over, 400, 'ERR_BAD_REQUEST', 'conditions');
    expect(JSON.stringify(over.body.error)).toMatch(/at most 500/);
    expect((await attacker.call('GET', '/v3/moderation/rules/too-many')).status).toBe(404);
  });
});
