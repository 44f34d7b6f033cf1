// node bench/moderation.mjs — what moderation costs a send. Two apps on one stack: one without rules,
// one with a keyword list of 1,000 entries behind an enabled blocking rule (the texts sent match none of
// them, so every send is judged in full and still delivered). Closed loops of CLIENTS senders per app,
// alternated ROUNDS times in the same run so machine-load drift hits both alike; prints throughput and
// send p50/p99 of each, the slowdown (goal ≤ 10 %), and the store's raw insert rate beside them (the bound
// a send shares). Then, in-process, the cost of judging one text against 1,000 and 100,000 terms: the
// index does not grow with the list. Then how long a rule change takes to reach every replica for a
// client that sends no consistency token (ADR 0035): the rule is switched off and on BENCH_SWITCHES
// times; after each switch's answer one client sends the listed term back to back until four answers in
// a row follow the switch. The switches carry no acting user, so with REPLICAS=2 the gateway alternates
// them over the replicas while the sender's sends stay on one (ADR 0036): every other switch is made on
// the replica that does not judge the sends. The reach is the time from the switch's answer to the
// first of those four; stale answers are counted.
// Prints figures; asserts nothing.
//   BENCH_DURATION (s per round and app, default 8), BENCH_ROUNDS (default 3), BENCH_CLIENTS (default 16),
//   BENCH_SWITCHES (default 20), REPLICAS (per service, default 1)
import { setTimeout as sleep } from 'node:timers/promises';
import { createGatewayClient } from './httpClient.mjs';
import { addBlockingKeywordRule, blockedTerms, word } from './moderationRule.mjs';
import { percentile, startBenchStack } from './stack.mjs';
import { formatStoreRaw, measureStoreRaw } from './store-raw.mjs';
import { ModerationPolicy } from '@chat/messages';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const SWITCHES = Number(process.env.BENCH_SWITCHES ?? 20);
const LIST_SIZE = 1_000;
/** Answers in a row that must follow a switch before it counts as everywhere. */
const IN_A_ROW = 4;

// The list's terms and the texts' words never meet.
const terms = blockedTerms(LIST_SIZE);
const vocabulary = Array.from({ length: 500 }, (_, i) => word('ok', i));
const sentence = (seed) => Array.from({ length: 14 }, (_, i) => vocabulary[(seed * 31 + i * 17) % vocabulary.length]).join(' ');

const stack = await startBenchStack({ name: undefined });
const client = createGatewayClient(stack.services.gatewayUrl);
stack.onStop(() => client.close());

async function setUpApp(name, withRules) {
  const app = await stack.createApp(name);
  const pairs = Array.from({ length: CLIENTS }, (_, i) => ({ sender: `s${i}`, receiver: `r${i}` }));
  for (const { sender, receiver } of pairs) {
    for (const uid of [sender, receiver]) await stack.api('POST', '/v3/users', { headers: app.chat, body: { uid, name: uid } });
  }
  if (withRules) await addBlockingKeywordRule(stack, app, client, { id: 'big-list', terms, sender: 's0', receiver: 'r0' });
  // The messages service learns users from events: wait until every sender can send.
  for (const { sender, receiver } of pairs) {
    for (;;) {
      const r = await client.request('POST', '/v3/messages', { ...app.chat, onbehalfof: sender }, { receiver, receiverType: 'user', data: { text: 'warm-up' } });
      if (r.status === 200) break;
      await sleep(50);
    }
  }
  return { app, pairs, latencies: [], sent: 0, failed: 0, seconds: 0 };
}

async function round(setup) {
  const end = performance.now() + DURATION_S * 1000;
  const started = performance.now();
  await Promise.all(
    setup.pairs.map(async (pair, c) => {
      for (let i = 0; performance.now() < end; i++) {
        const t0 = performance.now();
        const r = await client.request('POST', '/v3/messages', { ...setup.app.chat, onbehalfof: pair.sender }, { receiver: pair.receiver, receiverType: 'user', type: 'text', data: { text: sentence(c * 100_000 + i) } });
        if (r.status === 200) {
          setup.latencies.push(performance.now() - t0);
          setup.sent += 1;
        } else setup.failed += 1;
      }
    }),
  );
  setup.seconds += (performance.now() - started) / 1000;
  // Let the read models drain so the next round starts from the same state.
  await sleep(2_000);
}

const fmt = (v) => v.toFixed(1).padStart(7);

/** How long a rule switch takes to reach every replica for a client without a consistency token. */
async function ruleReach(setup) {
  const headers = { ...setup.app.chat, onbehalfof: setup.pairs[0].sender };
  const listed = { receiver: setup.pairs[0].receiver, receiverType: 'user', type: 'text', data: { text: `x ${terms[500]} y` } };
  const reaches = [];
  let stale = 0;
  let enabled = true;
  for (let n = 0; n < SWITCHES; n++) {
    enabled = !enabled;
    const switched = await client.request('PUT', '/v3/moderation/rules/big-list-rule', setup.app.chat, { enabled });
    if (switched.status !== 200) throw new Error(`the switch failed: ${switched.status} ${JSON.stringify(switched.body)}`);
    const answeredAt = performance.now();
    let firstOfRun = null;
    let inARow = 0;
    while (inARow < IN_A_ROW) {
      const sentAt = performance.now();
      const r = await client.request('POST', '/v3/messages', headers, listed);
      const follows = enabled ? r.body?.error?.code === 'ERR_BLOCKED_BY_EXTENSION' : r.status === 200;
      if (follows) {
        firstOfRun ??= sentAt;
        inARow += 1;
      } else {
        if (r.status !== 200 && r.body?.error?.code !== 'ERR_BLOCKED_BY_EXTENSION') throw new Error(`unexpected answer ${r.status} ${JSON.stringify(r.body)}`);
        stale += 1;
        firstOfRun = null;
        inARow = 0;
      }
      if (performance.now() - answeredAt > 30_000) throw new Error('a switch did not reach every replica within 30 s');
    }
    reaches.push(firstOfRun - answeredAt);
  }
  const sorted = [...reaches].sort((a, b) => a - b);
  console.log(
    `a rule switch without a consistency token, ${SWITCHES} switches, ${process.env.REPLICAS ?? 1} replica(s): the sends follow it after ` +
      `p50 ${percentile(sorted, 50).toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms; ${stale} stale answers`,
  );
}

try {
  const raw = await measureStoreRaw({ mongoUrl: stack.infra.mongoUrl, sizes: [], durationMs: 3_000 });
  const plain = await setUpApp('no rules', false);
  const ruled = await setUpApp('1,000 keywords', true);
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which goes first, so neither always runs on the fresher system.
    for (const setup of r % 2 === 0 ? [plain, ruled] : [ruled, plain]) await round(setup);
  }
  const summary = (setup) => {
    const sorted = [...setup.latencies].sort((a, b) => a - b);
    return { rate: setup.sent / setup.seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), failed: setup.failed };
  };
  const a = summary(plain);
  const b = summary(ruled);
  console.log(formatStoreRaw(raw));
  console.log(`sends, ${CLIENTS} concurrent clients per app, ${ROUNDS} alternating rounds of ${DURATION_S} s each:`);
  console.log('  app                       msg/s    p50 ms    p99 ms   failed');
  console.log(`  no rules                ${fmt(a.rate)}   ${fmt(a.p50)}   ${fmt(a.p99)}   ${a.failed}`);
  console.log(`  1,000-keyword rule      ${fmt(b.rate)}   ${fmt(b.p50)}   ${fmt(b.p99)}   ${b.failed}`);
  const change = (with_, without) => `${with_ >= without ? '+' : ''}${(((with_ - without) / without) * 100).toFixed(1)} %`;
  console.log(
    `  with the rule: throughput ${change(b.rate, a.rate)}, p99 ${change(b.p99, a.p99)} (goal: at most 10 % slower); ` +
      `store raw insertOne ${raw.insertOne.perSecond.toFixed(0)}/s beside it`,
  );
  await ruleReach(ruled);
} finally {
  await stack.stop();
}

// In-process: judging one 14-word text, against lists of 1,000 and 100,000 terms.
for (const size of [1_000, 100_000]) {
  const list = Array.from({ length: size }, (_, i) => word('bad', i * 7919));
  const settings = {
    reasons: [],
    ruleRevisions: [],
    agents: [],
    tools: [],
    keywordLists: [{ id: 'l', name: 'l', description: '', category: 'word', isCSV: false, searchTerms: list, createdAt: 0, updatedAt: 0, revisionId: 'a_l_1' }],
    rules: [
      {
        id: 'r', name: 'r', description: '', enabled: true, action: ['blockMessage'], createdAt: 0, updatedAt: 0, revisionId: 'a_r_1', revision: 1,
        conditions: [{ id: 1, entity: 'message', operand: 'text', operator: 'contains', category: 'word', isKeywordsReferencePresent: true, isMediaPresent: false, value: ['l'] }],
      },
    ],
  };
  const compileStarted = performance.now();
  const policy = new ModerationPolicy(settings);
  const compileMs = performance.now() - compileStarted;
  const runs = 200_000;
  let blocked = 0;
  const started = performance.now();
  for (let i = 0; i < runs; i++) if (policy.judge(sentence(i)).block) blocked += 1;
  const perJudge = ((performance.now() - started) * 1000) / runs;
  console.log(`judging a 14-word text against ${size.toLocaleString('en')} terms: ${perJudge.toFixed(2)} µs each (compiled once in ${compileMs.toFixed(1)} ms; ${blocked} blocked)`);
}
process.exit(0);
