import type { ModerationRule, RuleCondition, RuleMatch } from '@chat/contracts';
import type RE2 from 're2';
import { DEFAULT_PATTERN_BUDGET, compiledPatterns, patternProblem } from './moderationPatterns.js';
import type { PatternBudget } from './moderationPatterns.js';
import type { ModerationSettings } from './moderationSettings.js';

export { patternProblem } from './moderationPatterns.js';

/** What the enabled rules make of one text: blocked (by the first blocking rule), masked, flagged. */
export interface Verdict {
  block: RuleMatch | null;
  /** The text with every term a masking rule matched replaced by asterisks; null when none matched. */
  masked: string | null;
  flags: RuleMatch[];
  /** Rules whose patterns were not all read because the send's pattern budget ran out (they did not match). */
  unjudged: string[];
}

/** What the policy tells its host about terms it could not use and budgets that ran out (logs, metrics). */
export interface PolicyObserver {
  termRefused?(ruleId: string, term: string, problem: string): void;
  budgetExhausted?(ruleIds: readonly string[], elapsedMs: number): void;
}

export interface PolicyOptions {
  budget?: PatternBudget;
  observer?: PolicyObserver;
  /** The clock the time budget reads (milliseconds). */
  now?: () => number;
  /** The most pattern terms one app's policy compiles; the rest are refused (reported, never matched). */
  maxPatternTerms?: number;
  /** How long compiling the pattern terms may take before the rest are refused. */
  compileMs?: number;
}

/** Pattern terms per app (refused at save time past it; never compiled past it). */
export const MAX_PATTERN_TERMS_PER_APP = 500;
/** Compiling an app's pattern terms stops after this long: the rest are left out (reported). */
const COMPILE_MS = 150;

interface ConditionRef {
  rule: ModerationRule;
  condition: RuleCondition;
}

interface Token {
  text: string;
  start: number;
  end: number;
}

interface Span {
  start: number;
  end: number;
  term: string;
}

/** Words: letters and digits, with inner apostrophes ("don't" is one word). */
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
/** Phrases longer than this are matched by their first words only (a bound on the work per token). */
const MAX_PHRASE_WORDS = 8;

/** A term as the index keeps it: lower case, words separated by one space, CSV quotes dropped. */
export function normalizeTerm(term: string): string {
  const unquoted = term.trim().replace(/^"(.*)"$/s, '$1');
  return (unquoted.toLowerCase().match(WORD) ?? []).join(' ');
}

function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(WORD)) {
    tokens.push({ text: match[0].toLowerCase(), start: match.index, end: match.index + match[0].length });
  }
  return tokens;
}

/** The text conditions of the enabled rules with the terms they match: their own, or their lists'. */
function* textConditions(settings: ModerationSettings): Generator<ConditionRef & { terms: readonly string[]; byPattern: boolean }> {
  const lists = new Map(settings.keywordLists.map((list) => [list.id, list]));
  for (const rule of settings.rules) {
    if (!rule.enabled) continue;
    for (const condition of rule.conditions) {
      if (condition.operand !== 'text') continue;
      const terms = condition.isKeywordsReferencePresent ? condition.value.flatMap((id) => lists.get(id)?.searchTerms ?? []) : condition.value;
      const byPattern = condition.category === 'pattern' || (condition.isKeywordsReferencePresent && condition.value.some((id) => lists.get(id)?.category === 'pattern'));
      yield { rule, condition, terms, byPattern };
    }
  }
}

/** The pattern terms a policy of these settings compiles (each condition's distinct terms): bounded per app when saved. */
export function patternTermCount(settings: ModerationSettings): number {
  let count = 0;
  for (const { terms, byPattern } of textConditions(settings)) if (byPattern) count += new Set(terms).size;
  return count;
}

function isBlocking(rule: ModerationRule): boolean {
  return rule.action.includes('blockMessage') || rule.action.includes('dropMessage');
}

/**
 * The app's text rules compiled once per settings change. Word terms of every enabled rule and every
 * keyword list they name go into one hash index, so judging a text costs a few look-ups per word of
 * the text whatever the number of terms (1,000 or 100,000); each pattern condition is one combined
 * expression, compiled once. Image, video and custom operands need a hosted model: never matched here.
 */
export class ModerationPolicy {
  private readonly words = new Map<string, ConditionRef[]>();
  private readonly wholeTexts = new Map<string, ConditionRef[]>();
  private readonly patterns: Array<ConditionRef & { expressions: RE2[] }> = [];
  private longestPhrase = 0;
  private patternTerms = 0;
  private readonly compileStarted: number;
  private readonly budget: PatternBudget;
  private readonly now: () => number;

  /** Never throws and never stalls, whatever the settings hold (they may predate today's checks). */
  constructor(
    settings: ModerationSettings,
    private readonly options: PolicyOptions = {},
  ) {
    this.budget = options.budget ?? DEFAULT_PATTERN_BUDGET;
    this.now = options.now ?? (() => performance.now());
    this.compileStarted = this.now();
    for (const { rule, condition, terms, byPattern } of textConditions(settings)) {
      if (byPattern) this.addPatterns({ rule, condition }, terms);
      else this.addWords({ rule, condition }, terms);
    }
  }

  /** True when no text rule is enabled: a send skips judging altogether. */
  get isEmpty(): boolean {
    return this.words.size === 0 && this.wholeTexts.size === 0 && this.patterns.length === 0;
  }

  private addWords(ref: ConditionRef, terms: readonly string[]): void {
    const index = ref.condition.operator === 'equals' ? this.wholeTexts : this.words;
    for (const raw of terms) {
      const term = normalizeTerm(raw);
      if (term === '') continue;
      const words = term.split(' ');
      const key = words.slice(0, MAX_PHRASE_WORDS).join(' ');
      if (ref.condition.operator !== 'equals') this.longestPhrase = Math.max(this.longestPhrase, Math.min(words.length, MAX_PHRASE_WORDS));
      const refs = index.get(key);
      if (!refs) index.set(key, [ref]);
      else if (!refs.includes(ref)) refs.push(ref);
    }
  }

  private addPatterns(ref: ConditionRef, terms: readonly string[]): void {
    const max = this.options.maxPatternTerms ?? MAX_PATTERN_TERMS_PER_APP;
    const compileMs = this.options.compileMs ?? COMPILE_MS;
    const valid: string[] = [];
    for (const term of new Set(terms)) {
      const problem =
        this.patternTerms >= max ? `more than ${max} pattern terms in the app`
        : this.now() - this.compileStarted > compileMs ? `compiling the app's patterns took over ${compileMs} ms`
        : patternProblem(term);
      if (problem === null) {
        valid.push(term);
        this.patternTerms += 1;
      } else this.options.observer?.termRefused?.(ref.rule.id, term, problem);
    }
    if (valid.length === 0) return;
    this.patterns.push({ ...ref, expressions: compiledPatterns(valid, ref.condition.operator === 'equals') });
  }

  /** The spans of `text` each condition matched, in rule order. */
  private matches(text: string): { found: Map<ConditionRef, Span[]>; unjudged: string[] } {
    const found = new Map<ConditionRef, Span[]>();
    const add = (ref: ConditionRef, span: Span) => {
      const spans = found.get(ref);
      if (spans) spans.push(span);
      else found.set(ref, [span]);
    };
    if (this.words.size > 0) {
      const tokens = tokensOf(text);
      for (let i = 0; i < tokens.length; i++) {
        let key = '';
        for (let n = 0; n < this.longestPhrase && i + n < tokens.length; n++) {
          const token = tokens[i + n]!;
          key = n === 0 ? token.text : `${key} ${token.text}`;
          for (const ref of this.words.get(key) ?? []) add(ref, { start: tokens[i]!.start, end: token.end, term: key });
        }
      }
    }
    if (this.wholeTexts.size > 0) {
      const whole = normalizeTerm(text);
      for (const ref of this.wholeTexts.get(whole) ?? []) add(ref, { start: 0, end: text.length, term: whole });
    }
    const unjudged = this.patterns.length > 0 ? this.patternMatches(text, add) : [];
    return { found, unjudged };
  }

  /**
   * Pattern matches within the budget: the first `textChars` characters, at most `matches` matches
   * (a masking rule then masks to the end of the text), `ms` checked between expressions and every
   * few matches. Rules whose expressions were not all read are returned: they count as not matched
   * (fail open), so a send is never refused or delayed by a rule that could not be judged in time.
   */
  private patternMatches(text: string, add: (ref: ConditionRef, span: Span) => void): string[] {
    const started = this.now();
    const cut = text.length > this.budget.textChars;
    const scanned = cut ? text.slice(0, this.budget.textChars) : text;
    let collected = 0;
    let outOfTime = false;
    const unjudged = new Set<string>();
    for (const pattern of this.patterns) {
      for (const expression of pattern.expressions) {
        if (outOfTime || this.now() - started > this.budget.ms) {
          outOfTime = true;
          unjudged.add(pattern.rule.id);
          break;
        }
        expression.lastIndex = 0;
        let match: RegExpExecArray | null;
        while ((match = expression.exec(scanned)) !== null) {
          if (match[0] === '') {
            expression.lastIndex += 1;
            continue;
          }
          // A match reaching the cut of a longer text may not be one (`$`, a longer run): not taken.
          if (cut && match.index + match[0].length >= scanned.length) break;
          collected += 1;
          if (collected >= this.budget.matches) {
            add(pattern, { start: match.index, end: text.length, term: match[0] });
            outOfTime = true;
            break;
          }
          add(pattern, { start: match.index, end: match.index + match[0].length, term: match[0] });
          if (collected % 64 === 0 && this.now() - started > this.budget.ms) {
            outOfTime = true;
            unjudged.add(pattern.rule.id);
            break;
          }
        }
      }
    }
    if (unjudged.size > 0) this.options.observer?.budgetExhausted?.([...unjudged], this.now() - started);
    return [...unjudged];
  }

  judge(text: string): Verdict {
    const verdict: Verdict = { block: null, masked: null, flags: [], unjudged: [] };
    if (this.isEmpty || text === '') return verdict;
    const { found, unjudged } = this.matches(text);
    verdict.unjudged = unjudged;
    if (found.size === 0) return verdict;
    const maskSpans: Span[] = [];
    const seenRules = new Set<string>();
    for (const [ref, spans] of found) {
      const match: RuleMatch = {
        ruleId: ref.rule.id,
        ruleName: ref.rule.name,
        revisionId: ref.rule.revisionId,
        condition: ref.condition,
        action: ref.rule.action,
        matched: [...new Set(spans.map((span) => span.term))],
      };
      if (isBlocking(ref.rule)) verdict.block ??= match;
      if (ref.rule.action.includes('maskMessage')) maskSpans.push(...spans);
      if (ref.rule.action.includes('flagMessage') && !seenRules.has(ref.rule.id)) verdict.flags.push(match);
      seenRules.add(ref.rule.id);
    }
    if (maskSpans.length > 0) verdict.masked = masked(text, maskSpans);
    return verdict;
  }
}

/**
 * Every character of a matched span becomes `*` (whitespace inside a phrase stays). Spans are merged
 * in order and each stretch is replaced once, so a text with thousands of matches costs its length.
 */
function masked(text: string, spans: readonly Span[]): string {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let out = '';
  let done = 0;
  for (const span of sorted) {
    const start = Math.max(span.start, done);
    if (span.end <= start) continue;
    // Spans start and end on whole characters; `u` keeps an astral character one asterisk.
    out += text.slice(done, start) + text.slice(start, span.end).replace(/\S/gu, '*');
    done = span.end;
  }
  return out + text.slice(done);
}
