// node bench/moderation-patterns.mjs — what a tenant's pattern costs a send, before and after ADR 0037.
// The old engine (one JS RegExp per condition, flags giu, every match collected, as the policy did
// before) runs in a worker thread that is terminated past OLD_TIMEOUT_MS; the new one is the real
// ModerationPolicy (RE2 with its budget). Prints, in the same run: the judge time of attack strings
// against `(a+)+$` on both, and the per-send judge cost of an ordinary 200-term pattern rule on both.
// Prints figures; asserts nothing. Needs `tsc -b` first.   OLD_TIMEOUT_MS (default 10000)
import { Worker } from 'node:worker_threads';
import { ModerationPolicy } from '@chat/messages';

const OLD_TIMEOUT_MS = Number(process.env.OLD_TIMEOUT_MS ?? 10_000);

/** The old policy's pattern path, alone in a worker so a catastrophic case can be killed. */
const OLD_ENGINE = `
const { parentPort, workerData } = require('node:worker_threads');
const { terms, text, repeat } = workerData;
const expression = new RegExp(terms.map((t) => '(?:' + t + ')').join('|'), 'giu');
const started = performance.now();
for (let i = 0; i < repeat; i++) for (const match of text.matchAll(expression)) void match;
parentPort.postMessage((performance.now() - started) / repeat);
`;

function oldJudgeMs(terms, text, repeat = 1) {
  return new Promise((resolve) => {
    const worker = new Worker(OLD_ENGINE, { eval: true, workerData: { terms, text, repeat } });
    const timer = setTimeout(() => void worker.terminate().then(() => resolve(null)), OLD_TIMEOUT_MS);
    worker.once('message', (ms) => {
      clearTimeout(timer);
      void worker.terminate().then(() => resolve(ms));
    });
  });
}

const rule = (terms) => ({
  id: 'r', name: 'r', description: '', enabled: true, action: ['maskMessage'], createdAt: 1, updatedAt: 1, revisionId: 'app_r_1', revision: 1,
  conditions: [{ id: 1, entity: 'message', operand: 'text', operator: 'contains', category: 'pattern', isKeywordsReferencePresent: false, isMediaPresent: false, value: terms }],
});
const policyOf = (terms) => new ModerationPolicy({ reasons: [], rules: [rule(terms)], ruleRevisions: [], keywordLists: [], agents: [], tools: [] });

function newJudgeMs(policy, text, repeat = 1) {
  policy.judge(text);
  const started = performance.now();
  for (let i = 0; i < repeat; i++) policy.judge(text);
  return (performance.now() - started) / repeat;
}

const show = (ms) => (ms === null ? `> ${OLD_TIMEOUT_MS} ms (killed)` : ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(1)} ms`);

console.log('attack strings against (a+)+$ (old: JS RegExp; new: ModerationPolicy on RE2)');
const hang = policyOf(['(a+)+$']);
let killed = false;
for (const n of [20, 24, 26, 28, 40, 10_000, 65_535]) {
  const text = 'a'.repeat(n) + '!';
  // Backtracking doubles per character: once a shorter string was killed, a longer one is not run.
  const old = killed ? undefined : await oldJudgeMs(['(a+)+$'], text);
  killed ||= old === null;
  console.log(`  ${String(n + 1).padStart(6)} chars   old ${(old === undefined ? 'not run (a shorter one was killed)' : show(old)).padEnd(34)} new ${show(newJudgeMs(hang, text, 20))}`);
}

console.log('an ordinary 200-term pattern rule (per judged text)');
const terms = Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? `bad${i}\\w*` : i % 4 === 1 ? `\\b(?:foo|bar)${i}\\b` : i % 4 === 2 ? `\\d{3}-\\d{${(i % 3) + 3}}x${i}` : `spam+${i}`));
const vocabulary = Array.from({ length: 500 }, (_, i) => `ok${i.toString(36)}`);
const words = (count) => Array.from({ length: count }, (_, i) => vocabulary[(i * 17) % vocabulary.length]).join(' ');
const ordinary = policyOf(terms);
for (const count of [14, 200]) {
  const text = words(count);
  const old = await oldJudgeMs(terms, text, count > 100 ? 100 : 1_000);
  console.log(`  ${String(count).padStart(4)}-word text   old ${show(old).padEnd(26)} new ${show(newJudgeMs(ordinary, text, 2_000))}`);
}
