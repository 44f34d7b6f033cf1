import { describe, expect, it } from 'vitest';
import { decodeConsistencyToken, encodeConsistencyToken } from './consistencyToken.js';

describe('consistency tokens', () => {
  it('carry stream versions through an opaque header value', () => {
    const positions = new Map([
      ['messages:app1:a_user_b', 12],
      ['conversation-marks:app1:b:a_user_b', 3],
    ]);
    const token = encodeConsistencyToken(positions);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeConsistencyToken(token)).toEqual(positions);
  });

  it('refuse what this platform never issued', () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    expect(decodeConsistencyToken('not a token')).toBeNull();
    expect(decodeConsistencyToken(encode({ stream: 1 }))).toBeNull();
    expect(decodeConsistencyToken(encode([['s', 0]]))).toBeNull();
    expect(decodeConsistencyToken(encode([['s', 1.5]]))).toBeNull();
    expect(decodeConsistencyToken(encode([[7, 1]]))).toBeNull();
    expect(decodeConsistencyToken('x'.repeat(9_000))).toBeNull();
  });
});
