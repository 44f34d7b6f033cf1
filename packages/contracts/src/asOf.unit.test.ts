import { describe, expect, it } from 'vitest';
import { parseAsOf } from './asOf.js';
import { encodeConsistencyToken } from './consistencyToken.js';

const now = Date.UTC(2026, 0, 1);

describe('asOf', () => {
  it('reads epoch seconds and milliseconds as a time', () => {
    expect(parseAsOf(String(now / 1000), 'app1', now)).toEqual({ kind: 'time', at: now });
    expect(parseAsOf(String(now - 5), 'app1', now)).toEqual({ kind: 'time', at: now - 5 });
    expect(parseAsOf('0', 'app1', now)).toEqual({ kind: 'time', at: 0 });
  });

  it('reads a consistency token of the app as its positions', () => {
    const token = encodeConsistencyToken(new Map([['messages:app1:a_user_b', 3]]));
    expect(parseAsOf(token, 'app1', now)).toEqual({ kind: 'token', positions: new Map([['messages:app1:a_user_b', 3]]) });
  });

  it.each([
    ['empty', ''],
    ['a future time', String(now + 1)],
    ['a future time in seconds', String(now / 1000 + 1)],
    ['neither a number nor a token', 'yesterday'],
    ['a negative number', '-5'],
    ['another app’s token', encodeConsistencyToken(new Map([['messages:app2:a_user_b', 3]]))],
    ['a token naming no app', encodeConsistencyToken(new Map([['apikey', 3]]))],
  ])('refuses %s with a 400 naming asOf', (_case, raw) => {
    expect(() => parseAsOf(raw, 'app1', now)).toThrowError(expect.objectContaining({ code: 'ERR_BAD_REQUEST', message: expect.stringContaining('asOf') }));
  });
});
