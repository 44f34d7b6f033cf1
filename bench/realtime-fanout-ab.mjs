// node bench/realtime-fanout-ab.mjs <build root A> <build root B> — what realtime's fan-out costs per record
// on a replica nobody is connected to (issue 23, ADR 0100): each build's compiled Fanout, window and
// membership index in this one process, fed the same records (one-on-one sends and sends to groups of
// BENCH_GROUP_SIZE members, 3 partitions) in batches of 50, builds alternated A B B A … for BENCH_ROUNDS
// rounds of BENCH_RECORDS records. Prints this process's CPU µs per record by build and the ratio B ÷ A.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { alternatingOrder } from './buildRounds.mjs';

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const rounds = knob('BENCH_ROUNDS', 6);
const perRound = knob('BENCH_RECORDS', 40_000);
const groupSize = knob('BENCH_GROUP_SIZE', 20);
const roots = process.argv.slice(2, 4).map((root) => resolve(root));
if (roots.length !== 2) throw new Error('usage: node bench/realtime-fanout-ab.mjs <build root A> <build root B>');

const load = (root, path) => import(pathToFileURL(join(root, path)).href);
const builds = await Promise.all(
  roots.map(async (root) => ({
    ...(await load(root, 'services/realtime/dist/app/fanout.js')),
    ...(await load(root, 'services/realtime/dist/app/connections.js')),
    ...(await load(root, 'services/realtime/dist/domain/retentionWindow.js')),
    ...(await load(root, 'services/realtime/dist/domain/membershipIndex.js')),
    ...(await load(root, 'services/realtime/dist/domain/revocations.js')),
    ...(await load(root, 'services/realtime/dist/domain/blockIndex.js')),
    ...(await load(root, 'packages/contracts/dist/index.js')),
    ...(await load(root, 'packages/eventsourcing/dist/testing.js')),
  })),
);

/** The records of one round: every fifth a group send, the rest one-on-one, in batches of 50 per partition. */
function recordsOf(build, round) {
  const events = [];
  for (let i = 0; i < perRound; i++) {
    const id = `${round}-${i}`;
    const group = i % 5 === 0;
    const receiver = group ? `g${i % 4}` : `u${(i + 1) % 100}`;
    events.push(
      build.testEnvelope('MessageSent', `messages:app1:${receiver}`, i + 1, {
        id,
        conversationId: group ? `group_${receiver}` : `u${i % 100}_user_${receiver}`,
        sender: `u${i % 100}`,
        receiver,
        receiverType: group ? 'group' : 'user',
        category: 'message',
        type: 'text',
        data: { text: `message ${id} with a few words of text in it` },
        sentAt: 1_700_000_000 + i,
      }),
    );
  }
  return events;
}

function fanoutOf(build) {
  const window = new build.RetentionWindow({ retentionMs: 3_600_000, maxEvents: 200_000 });
  const index = new build.MembershipIndex();
  const fanout = new build.Fanout({ window, index, registry: new build.ConnectionRegistry(), revocations: new build.RecentRevocations(10_000), blocks: new build.BlockIndex(10_000), now: () => Date.now() });
  fanout.onStart([0, 1, 2].map((partition) => ({ topic: build.topics.messages, partition, offset: 0 })));
  // The groups' members, as the conversations topic would have told the index.
  const joins = [];
  for (let g = 0; g < 4; g++) {
    for (let m = 0; m < groupSize; m++) joins.push({ offset: joins.length, timestamp: Date.now(), event: build.testEnvelope('GroupMemberJoined', `group:app1:g${g}`, m + 1, { guid: `g${g}`, uid: `u${m}`, scope: 'participant', joinedAt: 1 }) });
  }
  fanout.onStart([{ topic: build.topics.conversations, partition: 0, offset: 0 }]);
  fanout.onBatch(build.topics.conversations, 0, joins);
  return fanout;
}

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const totals = roots.map(() => ({ us: 0, records: 0 }));
const order = alternatingOrder(rounds);
for (const [round, which] of order.entries()) {
  const build = builds[which];
  const events = recordsOf(build, round);
  const fanout = fanoutOf(build);
  const offsets = [0, 0, 0];
  globalThis.gc?.();
  const from = cpuUs();
  for (let at = 0; at < events.length; at += 150) {
    for (let partition = 0; partition < 3; partition++) {
      const batch = events.slice(at + partition * 50, at + (partition + 1) * 50).map((event) => ({ offset: offsets[partition]++, timestamp: Date.now(), event }));
      if (batch.length > 0) fanout.onBatch(build.topics.messages, partition, batch);
    }
  }
  const us = cpuUs() - from;
  totals[which].us += us;
  totals[which].records += events.length;
  console.log(`round ${round + 1} ${'AB'[which]}: ${(us / events.length).toFixed(2)} µs CPU per record`);
}
const [a, b] = totals.map((t) => t.us / t.records);
console.log(`all rounds: A ${a.toFixed(2)} | B ${b.toFixed(2)} µs per record | B ÷ A ${(b / a).toFixed(2)}`);
