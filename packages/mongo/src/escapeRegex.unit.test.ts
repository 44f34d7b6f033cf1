import { describe, expect, it } from 'vitest';
import { escapeRegex } from './escapeRegex.js';

describe('escapeRegex', () => {
  it('matches every pattern character literally', () => {
    const text = 'a.b*c+d?e^f$g{h}i(j)k|l[m]n\\o';
    const pattern = new RegExp(`^${escapeRegex(text)}$`);
    expect(pattern.test(text)).toBe(true);
    expect(pattern.test(text.replace('.', 'x'))).toBe(false);
  });

  it('leaves plain text as it is', () => {
    expect(escapeRegex('alice-01_x')).toBe('alice-01_x');
  });
});
