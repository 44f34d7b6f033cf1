import { describe, expect, it } from 'vitest';
import { compiledPatterns, patternProblem, repetitionWeight, withoutCaptures } from './moderationPatterns.js';

describe('moderation pattern terms', () => {
  it('refuses what RE2 cannot run in linear time: back-references and look-around', () => {
    for (const term of ['(a)\\1', '(?<w>a)\\k<w>', 'a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b']) {
      expect(patternProblem(term), term).toMatch(/back-references and look-around are not supported/);
    }
  });

  it('refuses terms whose program is too large, that do not compile, or that match the empty text', () => {
    expect(patternProblem('(?:[^x]*[^y]){900}z')).toMatch(/too complex/);
    expect(patternProblem('((.*a){20}){20}')).toMatch(/too complex/);
    expect(patternProblem('[\\p{L}\\p{N}]{2,20}')).toMatch(/too complex/);
    expect(patternProblem('(?:\\p{L}*\\P{L}){100}z')).toMatch(/too complex/);
    expect(patternProblem('(open')).not.toBeNull();
    expect(patternProblem('a*')).toBe('matches the empty text');
  });

  it('accepts ordinary patterns, including the catastrophic ones a backtracking engine hangs on', () => {
    for (const term of ['\\d{3}-\\d{4}', '[a-z]+@[a-z]+\\.com', '(?i)spam', '\\p{L}+ing\\b', '(a+)+$', '(a|a)*b', '(\\w+\\s?)+$', '(.*a){20}', '(?<year>\\d{4})-\\d\\d']) {
      expect(patternProblem(term), term).toBeNull();
    }
  });

  it('makes groups non-capturing, leaving escapes, classes and literal text alone', () => {
    expect(withoutCaptures('(a+)+$')).toBe('(?:a+)+$');
    expect(withoutCaptures('(?<y>\\d)(?P<m>x)')).toBe('(?:\\d)(?:x)');
    expect(withoutCaptures('\\((a)[(][^(]()[]([:alpha:](]\\Q(x)\\E(b)')).toBe('\\((?:a)[(][^(](?:)[]([:alpha:](]\\Q(x)\\E(?:b)');
    expect(withoutCaptures('(?:a)(?i:b)')).toBe('(?:a)(?i:b)');
  });

  it('weighs counted repetitions by their product along the nesting', () => {
    expect(repetitionWeight('\\d{3}-\\d{4}')).toBe(4);
    expect(repetitionWeight('(?:a{3}b){20}')).toBe(60);
    expect(repetitionWeight('((a{2,5}){10}x){3}')).toBe(150);
    expect(repetitionWeight('[{]{9}\\{99}(a+)+')).toBe(9);
  });

  it('splits a condition whose alternation is too large into expressions that each fit', () => {
    const terms = Array.from({ length: 40 }, (_, i) => `(?:.*${String.fromCharCode(97 + (i % 26))}){40}`);
    const expressions = compiledPatterns(terms, false);
    expect(expressions.length).toBeGreaterThan(1);
    expect(expressions.some((e) => e.test('xyz'.repeat(20) + 'a'.repeat(40)))).toBe(true);
  });
});
