import type { ModerationRule, RuleCondition, RuleMatch } from '@chat/contracts';
import type { ModerationSettings } from './moderationSettings.js';

/** What the enabled rules make of one text: blocked (by the first blocking rule), masked, flagged. */
export interface Verdict {
  block: RuleMatch | null;
  /** The text with every term a masking rule matched replaced by asterisks; null when none matched. */
  masked: string | null;
  flags: RuleMatch[];
}

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
  private readonly patterns: Array<ConditionRef & { expression: RegExp }> = [];
  private longestPhrase = 0;

  constructor(settings: ModerationSettings) {
    const lists = new Map(settings.keywordLists.map((list) => [list.id, list]));
    for (const rule of settings.rules) {
      if (!rule.enabled) continue;
      for (const condition of rule.conditions) {
        if (condition.operand !== 'text') continue;
        const ref = { rule, condition };
        const terms = condition.isKeywordsReferencePresent ? condition.value.flatMap((id) => lists.get(id)?.searchTerms ?? []) : condition.value;
        const byPattern = condition.category === 'pattern' || (condition.isKeywordsReferencePresent && condition.value.some((id) => lists.get(id)?.category === 'pattern'));
        if (byPattern) this.addPatterns(ref, terms);
        else this.addWords(ref, terms);
      }
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
    const valid = terms.filter((term) => patternProblem(term) === null);
    if (valid.length === 0) return;
    const source = ref.condition.operator === 'equals' ? `^(?:${valid.join('|')})$` : valid.map((term) => `(?:${term})`).join('|');
    this.patterns.push({ ...ref, expression: new RegExp(source, 'giu') });
  }

  /** The spans of `text` each condition matched, in rule order. */
  private matches(text: string): Map<ConditionRef, Span[]> {
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
    for (const pattern of this.patterns) {
      for (const match of text.matchAll(pattern.expression)) {
        if (match[0] === '') continue;
        add(pattern, { start: match.index, end: match.index + match[0].length, term: match[0] });
      }
    }
    return found;
  }

  judge(text: string): Verdict {
    const verdict: Verdict = { block: null, masked: null, flags: [] };
    if (this.isEmpty || text === '') return verdict;
    const found = this.matches(text);
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

/** Every character of a matched span becomes `*` (whitespace inside a phrase stays). */
function masked(text: string, spans: readonly Span[]): string {
  const chars = [...text];
  // Spans are in UTF-16 offsets; rebuild by offset so astral characters stay whole.
  let out = '';
  let offset = 0;
  for (const char of chars) {
    const inside = spans.some((span) => offset >= span.start && offset < span.end);
    out += inside && char.trim() !== '' ? '*' : char;
    offset += char.length;
  }
  return out;
}

/** Why a pattern term cannot be used (null: it compiles and cannot match the empty string alone). */
export function patternProblem(term: string): string | null {
  try {
    const expression = new RegExp(term, 'u');
    if (expression.test('')) return 'matches the empty text';
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : 'not a regular expression';
  }
}
