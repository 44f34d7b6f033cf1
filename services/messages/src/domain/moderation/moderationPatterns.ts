import RE2 from 're2';

/**
 * Tenants' `pattern` terms run on RE2 (ADR 0037): time linear in the text, no back-references, no
 * look-around. Linear is not cheap enough on its own — a 200-character term can expand into a program
 * of thousands of states (`(?:[^x]*[^y]){900}z` takes 2.3 s over a 64 KiB text) — so each term must
 * also fit a small program, and a send's judging has a budget (`PatternBudget`).
 */

/**
 * A term's program must fit this much RE2 memory. It bounds both a term's work per character and its
 * compile time (every replica compiles an app's terms on each settings change, on the event loop):
 * `\p{L}+` fits, `[\p{L}\p{N}]{2,20}` (2 MiB, 40 ms to compile) does not.
 */
export const TERM_PROGRAM_BYTES = 128 * 1024;
/** Saving terms may spend this long checking them; past it the save is refused (fewer or simpler patterns). */
export const SAVE_CHECK_MS = 500;
/** Counted repetitions multiply a term's states: `(?:.*a){1000}` is a thousand copies of `.*a`. */
export const MAX_REPETITION = 100;
/** Terms of one condition are combined into expressions of at most this program size (split when larger). */
const EXPRESSION_PROGRAM_BYTES = 256 * 1024;
/** Terms per combined expression before its size is even tried. */
const TERMS_PER_EXPRESSION = 64;

export interface PatternBudget {
  /** Characters of a text the patterns read (the word index reads all of it). */
  textChars: number;
  /** Pattern matches collected per judged text; past it, a masking rule masks to the end of the text. */
  matches: number;
  /** Time the patterns of one judged text may take, checked between expressions and every few matches. */
  ms: number;
}

/** One expression's scan cannot be interrupted: the text cap bounds it (ADR 0037 has the figures). */
export const DEFAULT_PATTERN_BUDGET: PatternBudget = { textChars: 8_192, matches: 1_000, ms: 20 };

/**
 * The term with every capturing group made non-capturing. Only the whole match is used, and RE2
 * finds a match without groups with its DFA alone; a group makes it run the slower NFA over each
 * match to place the group (`(.*a){20}` over 64 KiB: 54 ms with the group, 0.4 ms without).
 */
export function withoutCaptures(term: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < term.length; i++) {
    const char = term[i]!;
    if (char === '\\') {
      if (term[i + 1] === 'Q') {
        // \Q…\E is literal text: copied as it is.
        const end = term.indexOf('\\E', i + 2);
        const stop = end === -1 ? term.length : end + 2;
        out += term.slice(i, stop);
        i = stop - 1;
        continue;
      }
      out += term.slice(i, i + 2);
      i += 1;
      continue;
    }
    if (inClass) {
      if (char === '[' && term[i + 1] === ':') {
        const end = term.indexOf(':]', i + 2);
        if (end !== -1) {
          out += term.slice(i, end + 2);
          i = end + 1;
          continue;
        }
      }
      if (char === ']') inClass = false;
      out += char;
      continue;
    }
    if (char === '[') {
      inClass = true;
      out += char;
      // A `]` first in a class (after an optional `^`) is a member, not the end.
      if (term[i + 1] === '^') out += term[++i];
      if (term[i + 1] === ']') out += term[++i];
      continue;
    }
    if (char === '(') {
      if (term[i + 1] !== '?') {
        out += '(?:';
        continue;
      }
      const named = /^\(\?P?<[A-Za-z_][A-Za-z0-9_]*>/.exec(term.slice(i));
      if (named) {
        out += '(?:';
        i += named[0].length - 1;
        continue;
      }
    }
    out += char;
  }
  return out;
}

/**
 * The largest product of counted repetitions along any nesting of the term: `(?:a{3}){20}` is 60.
 * `*`, `+` and `?` cost nothing here (RE2 keeps them as loops, not copies).
 */
export function repetitionWeight(term: string): number {
  const frames = [{ max: 1 }];
  let last = 1;
  let inClass = false;
  for (let i = 0; i < term.length; i++) {
    const char = term[i]!;
    if (char === '\\') {
      i += 1;
      last = 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    const top = frames[frames.length - 1]!;
    if (char === '[') {
      inClass = true;
      if (term[i + 1] === '^') i += 1;
      if (term[i + 1] === ']') i += 1;
      last = 1;
    } else if (char === '(') frames.push({ max: 1 });
    else if (char === ')' && frames.length > 1) {
      last = frames.pop()!.max;
      frames[frames.length - 1]!.max = Math.max(frames[frames.length - 1]!.max, last);
    } else if (char === '{') {
      const counted = /^\{(\d+)(?:,(\d*))?\}/.exec(term.slice(i));
      if (counted) {
        const times = Math.max(Number(counted[1]), Number(counted[2] || 0));
        top.max = Math.max(top.max, last * times);
        i += counted[0].length - 1;
      }
    } else last = 1;
  }
  return Math.max(...frames.map((frame) => frame.max));
}

/** The program of these terms as one alternation, if RE2 compiles it within `bytes`. */
function fits(sources: readonly string[], bytes: number): boolean {
  try {
    new RE2.Set(sources, 'iu', { maxMem: bytes });
    return true;
  } catch {
    return false;
  }
}

/** Why a pattern term cannot be used (null: RE2 compiles it small enough and it cannot match the empty text alone). */
export function patternProblem(term: string): string | null {
  let expression: RE2;
  try {
    expression = new RE2(withoutCaptures(term), 'u');
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'not a regular expression';
    return `${reason}; back-references and look-around are not supported`;
  }
  if (repetitionWeight(term) > MAX_REPETITION) return `too complex: counted repetitions multiply to more than ${MAX_REPETITION}`;
  if (!fits([withoutCaptures(term)], TERM_PROGRAM_BYTES)) return 'too complex: its program is larger than the pattern engine allows (fewer or smaller repetitions)';
  if (expression.test('')) return 'matches the empty text';
  return null;
}

/**
 * Terms that passed `patternProblem` compiled into as few expressions as fit: one alternation per condition when it is
 * small enough, split in halves until each part is. `equals` anchors each expression at both ends.
 */
export function compiledPatterns(terms: readonly string[], wholeText: boolean): RE2[] {
  const sources = terms.map(withoutCaptures);
  const expressions: RE2[] = [];
  const build = (part: readonly string[]) => {
    if (part.length === 0) return;
    if (part.length === 1 || (part.length <= TERMS_PER_EXPRESSION && fits(part, EXPRESSION_PROGRAM_BYTES))) {
      const body = part.map((source) => `(?:${source})`).join('|');
      try {
        expressions.push(new RE2(wholeText ? `^(?:${body})$` : body, 'giu'));
        return;
      } catch {
        // Checked terms compile alone; a policy is built from stored settings and must not throw:
        // a part that does not compile is split, a lone term left out.
        if (part.length === 1) return;
      }
    }
    const half = Math.ceil(part.length / 2);
    build(part.slice(0, half));
    build(part.slice(half));
  };
  build(sources);
  return expressions;
}
