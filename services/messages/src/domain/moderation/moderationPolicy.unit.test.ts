import type { ModerationRule, RuleCondition } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { ModerationPolicy, normalizeTerm, patternProblem } from './moderationPolicy.js';
import { emptySettings } from './moderationSettings.js';
import type { ModerationSettings } from './moderationSettings.js';

const condition = (extra: Partial<RuleCondition>): RuleCondition => ({
  id: 1,
  entity: 'message',
  operand: 'text',
  operator: 'contains',
  category: 'word',
  isKeywordsReferencePresent: false,
  isMediaPresent: false,
  value: [],
  ...extra,
});

const rule = (id: string, action: ModerationRule['action'], conditions: RuleCondition[], enabled = true): ModerationRule => ({
  id,
  name: `Rule ${id}`,
  description: '',
  enabled,
  conditions,
  action,
  createdAt: 1,
  updatedAt: 1,
  revisionId: `app_${id}_1`,
  revision: 1,
});

function policyOf(rules: ModerationRule[], lists: Record<string, { terms: string[]; category?: 'word' | 'pattern' }> = {}): ModerationPolicy {
  const settings: ModerationSettings = {
    ...emptySettings(),
    rules,
    keywordLists: Object.entries(lists).map(([id, { terms, category }]) => ({
      id,
      name: id,
      description: '',
      category: category ?? 'word',
      isCSV: false,
      searchTerms: terms,
      createdAt: 1,
      updatedAt: 1,
      revisionId: `app_${id}_1`,
    })),
  };
  return new ModerationPolicy(settings);
}

describe('ModerationPolicy', () => {
  it('blocks on a listed word, whole words only, whatever the case and punctuation', () => {
    const policy = policyOf([rule('b', ['blockMessage'], [condition({ isKeywordsReferencePresent: true, value: ['bad'] })])], { bad: { terms: ['Darn', '"heck"'] } });
    expect(policy.judge('oh DARN!').block).toMatchObject({ ruleId: 'b', matched: ['darn'] });
    expect(policy.judge('what the heck').block?.matched).toEqual(['heck']);
    expect(policy.judge('darnation and checkers').block).toBeNull();
  });

  it('matches phrases across any whitespace, and `equals` only the whole text', () => {
    const policy = policyOf([
      rule('p', ['blockMessage'], [condition({ value: ['evil plan'] })]),
      rule('e', ['flagMessage'], [condition({ operator: 'equals', value: ['hello there'] })]),
    ]);
    expect(policy.judge('my evil\n  plan').block?.matched).toEqual(['evil plan']);
    expect(policy.judge('evil planet').block).toBeNull();
    expect(policy.judge('Hello, there!').flags.map((f) => f.ruleId)).toEqual(['e']);
    expect(policy.judge('hello there friend').flags).toEqual([]);
  });

  it('masks every matched word in place, keeping the rest of the text', () => {
    const policy = policyOf([rule('m', ['maskMessage'], [condition({ value: ['darn', 'big fool'] })])]);
    const verdict = policy.judge('Darn, you big  fool — darn.');
    expect(verdict).toMatchObject({ block: null, masked: '****, you ***  **** — ****.', flags: [] });
    expect(policy.judge('nothing here').masked).toBeNull();
  });

  it('a blocking rule wins; flags are collected once per rule; disabled rules and media operands never match', () => {
    const policy = policyOf([
      rule('off', ['blockMessage'], [condition({ value: ['spam'] })], false),
      rule('img', ['blockMessage'], [condition({ operand: 'image', value: ['spam'] })]),
      rule('f', ['flagMessage'], [condition({ value: ['spam', 'eggs'] })]),
      rule('b', ['dropMessage'], [condition({ value: ['eggs'] })]),
    ]);
    expect(policy.judge('spam spam').block).toBeNull();
    expect(policy.judge('spam spam').flags.map((f) => f.matched)).toEqual([['spam']]);
    const both = policy.judge('spam and eggs');
    expect(both.block?.ruleId).toBe('b');
    expect(both.flags.map((f) => f.ruleId)).toEqual(['f']);
  });

  it('pattern lists are matched as one expression per condition', () => {
    const policy = policyOf([rule('phone', ['maskMessage'], [condition({ isKeywordsReferencePresent: true, value: ['numbers'] })])], {
      numbers: { terms: ['\\d{3}-\\d{4}', '[a-z]+@[a-z]+\\.com'], category: 'pattern' },
    });
    expect(policy.judge('call 555-1234 or mail me@example.com').masked).toBe(`call ${'*'.repeat(8)} or mail ${'*'.repeat('me@example.com'.length)}`);
  });

  it('costs the same per text with 100 or 100,000 terms (an index, not a scan)', () => {
    const judgeTime = (size: number) => {
      const policy = policyOf([rule('b', ['blockMessage'], [condition({ value: Array.from({ length: size }, (_, i) => `term${i}`) })])]);
      const text = 'a perfectly ordinary sentence with nothing in it at all';
      const started = performance.now();
      for (let i = 0; i < 5_000; i++) policy.judge(text);
      return performance.now() - started;
    };
    judgeTime(100); // warm-up
    const small = judgeTime(100);
    const large = judgeTime(100_000);
    expect(large).toBeLessThan(small * 5 + 20);
  });

  it('normalizes terms and tells which patterns cannot be used', () => {
    expect(normalizeTerm('  "Evil   PLAN" ')).toBe('evil plan');
    expect(patternProblem('(open')).not.toBeNull();
    expect(patternProblem('a*')).toBe('matches the empty text');
    expect(patternProblem('\\d+')).toBeNull();
  });
});
