import { describe, expect, it } from 'vitest';
import { outcomeOf } from './deliveries.js';

const policy = { baseMs: 100, maxMs: 1_000, maxAttempts: 3 };
const answer = (status?: number, invalidToken = false) => ({ ...(status !== undefined ? { status } : {}), latencyMs: 1, responsePrefix: '', ...(invalidToken ? { invalidToken } : {}) });

describe('what a provider’s answer means', () => {
  it('2xx delivers; a dead token is final; a client error other than 408/429 is not retried', () => {
    expect(outcomeOf(answer(202), 1, policy)).toBe('delivered');
    expect(outcomeOf(answer(404, true), 1, policy)).toBe('invalidToken');
    expect(outcomeOf(answer(401), 1, policy)).toBe('failed');
    expect(outcomeOf(answer(429), 1, policy)).toBe('retrying');
    expect(outcomeOf(answer(408), 1, policy)).toBe('retrying');
  });

  it('server errors and no answer at all are retried until the attempts run out', () => {
    expect(outcomeOf(answer(503), 1, policy)).toBe('retrying');
    expect(outcomeOf(answer(undefined), 2, policy)).toBe('retrying');
    expect(outcomeOf(answer(503), 3, policy)).toBe('failed');
  });
});
