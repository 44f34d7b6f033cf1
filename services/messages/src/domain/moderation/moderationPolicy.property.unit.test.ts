import type { ModerationRule } from '@chat/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModerationPolicy } from './moderationPolicy.js';
import { emptySettings } from './moderationSettings.js';

/** The most text a send can carry: the service's 64 KiB JSON body. */
const MAX_TEXT = 64 * 1024;
/**
 * Far below what a backtracking engine takes on these (seconds to forever), generous for a 2-core
 * machine that runs the system tests beside this file.
 */
const JUDGE_BOUND_MS = 100;

const rule = (id: string, conditions: ModerationRule['conditions']): ModerationRule => ({
  id,
  name: id,
  description: '',
  enabled: true,
  conditions,
  action: ['maskMessage', 'flagMessage'],
  createdAt: 1,
  updatedAt: 1,
  revisionId: `app_${id}_1`,
  revision: 1,
});

/** A policy with the terms as a rule's own pattern condition and as a pattern keyword list, as replay would build it (unchecked). */
function policyOf(terms: string[]): ModerationPolicy {
  const base = { id: 1, entity: 'message', operand: 'text', operator: 'contains', category: 'pattern', isMediaPresent: false } as const;
  return new ModerationPolicy({
    ...emptySettings(),
    rules: [rule('own', [{ ...base, isKeywordsReferencePresent: false, value: terms }]), rule('listed', [{ ...base, isKeywordsReferencePresent: true, value: ['evil'] }])],
    keywordLists: [{ id: 'evil', name: 'evil', description: '', category: 'pattern', isCSV: false, searchTerms: terms, createdAt: 1, updatedAt: 1, revisionId: 'app_evil_1' }],
  });
}

const char = fc.constantFrom('a', 'b', 'x', '1', ' ', 'é');
const atom = fc.oneof(char, fc.constantFrom('.', '\\w', '\\s', '[a-z]', '\\p{L}', '[^x]'));
const quantifier = fc.constantFrom('+', '*', '?', '{2,}', '{1,20}', '{20}', '{1,100}');
/** Nested quantifiers, overlapping alternations and counted repeats of loops: each hangs a backtracking engine. */
const catastrophic = fc.oneof(
  fc.tuple(atom, quantifier, quantifier, fc.constantFrom('$', 'b', '!', '')).map(([a, q1, q2, end]) => `(${a}${q1})${q2}${end}`),
  fc.tuple(atom, atom, quantifier, fc.constantFrom('$', '!', 'z')).map(([a, b, q, end]) => `(${a}|${a}${b}|${b})${q}${end}`),
  fc.tuple(atom, fc.integer({ min: 2, max: 1000 })).map(([a, n]) => `(.*${a}){${n}}`),
  fc.tuple(atom, quantifier).map(([a, q]) => `((${a}+\\s?)${q})*$`),
  fc.constantFrom('(a+)+$', '(a|a)*b', '(a|aa)+$', '(.*a){20}', '(\\w+\\s?)*$', '(x+x+)+y', '^(([a-z])+.)+[A-Z]([a-z])+$', '(.*){1,32000}[bc]', '(?:[^x]*[^y]){900}z', '(\\p{L}*\\P{L}){100}z', '(a)\\1+$'),
);
/** A long run of what the pattern repeats, then a character it does not expect. */
const attack = fc.tuple(char, fc.integer({ min: 20, max: MAX_TEXT - 1 }), fc.constantFrom('!', '\u0000', 'Z', '😀')).map(([c, n, end]) => c.repeat(n) + end);

/**
 * The CPU time (ms) of the fastest of three judgings. CPU time, not wall time: on a machine whose
 * other processes take the cores, wall time measures the machine; and the minimum drops the run a GC
 * lengthened, while backtracking lengthens every run.
 */
function judgeTime(policy: ModerationPolicy, text: string): number {
  let fastest = Infinity;
  for (let run = 0; run < 3; run++) {
    const started = process.cpuUsage();
    policy.judge(text);
    const spent = process.cpuUsage(started);
    fastest = Math.min(fastest, (spent.user + spent.system) / 1000);
  }
  return fastest;
}

describe('ModerationPolicy under catastrophic patterns', () => {
  it(`judges any attack string against any generated catastrophic pattern within ${JUDGE_BOUND_MS} ms, and never throws`, () => {
    fc.assert(
      fc.property(fc.array(catastrophic, { minLength: 1, maxLength: 5 }), attack, (terms, text) => {
        const policy = policyOf(terms);
        policy.judge('warm-up');
        expect(judgeTime(policy, text)).toBeLessThan(JUDGE_BOUND_MS);
      }),
      { numRuns: 60 },
    );
  });

  it('the 40-character attack on (a+)+$ and a 64 KiB one finish within the bound', () => {
    const policy = policyOf(['(a+)+$', '(a|a)*b', '(.*a){20}']);
    for (const text of ['a'.repeat(40) + '!', 'a'.repeat(MAX_TEXT - 1) + '!']) expect(judgeTime(policy, text)).toBeLessThan(JUDGE_BOUND_MS);
  });

  it('a replayed policy neutralises terms the engine refuses and still matches the usable ones', () => {
    const refused: string[] = [];
    const policy = new ModerationPolicy(
      {
        ...emptySettings(),
        rules: [
          rule('mixed', [{ id: 1, entity: 'message', operand: 'text', operator: 'contains', category: 'pattern', isKeywordsReferencePresent: false, isMediaPresent: false, value: ['(a)\\1', '(?=x)y', '(?:[^x]*[^y]){900}z', 'spam+'] }]),
        ],
      },
      { observer: { termRefused: (_rule, term) => refused.push(term) } },
    );
    expect(refused).toEqual(['(a)\\1', '(?=x)y', '(?:[^x]*[^y]){900}z']);
    expect(policy.judge('so spammm').flags.map((f) => f.matched)).toEqual([['spammm']]);
  });

  it('stops compiling an app\'s patterns past the compile budget: the rest are left out and reported', () => {
    let clock = 0;
    let step = 60;
    const refused: string[] = [];
    const value = ['one+', 'two+', 'three+'];
    const policy = new ModerationPolicy(
      { ...emptySettings(), rules: [rule('slow', [{ id: 1, entity: 'message', operand: 'text', operator: 'contains', category: 'pattern', isKeywordsReferencePresent: false, isMediaPresent: false, value }])] },
      { compileMs: 100, now: () => (clock += step), observer: { termRefused: (_rule, term, problem) => refused.push(`${term}: ${problem}`) } },
    );
    step = 0;
    expect(refused).toEqual(["two+: compiling the app's patterns took over 100 ms", "three+: compiling the app's patterns took over 100 ms"]);
    expect(policy.judge('one two three').flags.map((f) => f.matched)).toEqual([['one']]);
  });

  it('stops reading patterns when the time budget runs out and names the rules it did not judge', () => {
    let clock = 0;
    const exhausted: string[][] = [];
    const policy = new ModerationPolicy(
      { ...emptySettings(), rules: [rule('first', [{ id: 1, entity: 'message', operand: 'text', operator: 'contains', category: 'pattern', isKeywordsReferencePresent: false, isMediaPresent: false, value: ['a+'] }]), rule('second', [{ id: 1, entity: 'message', operand: 'text', operator: 'contains', category: 'pattern', isKeywordsReferencePresent: false, isMediaPresent: false, value: ['b+'] }])] },
      { now: () => (clock += 15), observer: { budgetExhausted: (ids) => exhausted.push([...ids]) } },
    );
    const verdict = policy.judge('aaa bbb');
    expect(verdict.flags.map((f) => f.ruleId)).toEqual(['first']);
    expect(verdict.unjudged).toEqual(['second']);
    expect(exhausted).toEqual([['second']]);
  });

  it('masks from the last collected match to the end once the match budget is spent', () => {
    const policy = new ModerationPolicy(
      { ...emptySettings(), rules: [rule('many', [{ id: 1, entity: 'message', operand: 'text', operator: 'contains', category: 'pattern', isKeywordsReferencePresent: false, isMediaPresent: false, value: ['x'] }])] },
      { budget: { textChars: 100, matches: 3, ms: 1_000 } },
    );
    expect(policy.judge('x.x.x.x.x').masked).toBe('*.*.*****');
  });

  it('reads only the first textChars characters with patterns, and takes no match that reaches the cut', () => {
    const own = (value: string[]) => [{ id: 1, entity: 'message', operand: 'text', operator: 'contains', category: 'pattern', isKeywordsReferencePresent: false, isMediaPresent: false, value }] as ModerationRule['conditions'];
    const policy = new ModerationPolicy({ ...emptySettings(), rules: [rule('end', own(['b$'])), rule('far', own(['zz']))] }, { budget: { textChars: 10, matches: 100, ms: 1_000 } });
    expect(policy.judge('aaaaaaaab').flags.map((f) => f.ruleId)).toEqual(['end']);
    expect(policy.judge('aaaaaaaaab and more zz').flags).toEqual([]);
  });
});
