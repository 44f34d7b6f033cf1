import { describe, expect, it } from 'vitest';
import { hashGroupPassword, passwordMatches } from './groupsPassword.js';

describe('group passwords', () => {
  it('hash with a fresh salt in the published format and verify only the right password', async () => {
    const first = await hashGroupPassword('open sesame');
    const second = await hashGroupPassword('open sesame');
    expect(first).toMatch(/^scrypt\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('sesame');
    expect(await passwordMatches('open sesame', first)).toBe(true);
    expect(await passwordMatches('open sesame!', first)).toBe(false);
    expect(await passwordMatches('open sesame', undefined)).toBe(false);
    expect(await passwordMatches('open sesame', 'plain$text')).toBe(false);
  });
});
