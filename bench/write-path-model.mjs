// node bench/write-path-model.mjs [rate] [store ms] [produce ms] [eventsourcing dist] — the write path's
// own waits, apart from CPU (ADR 0050): the real CommandRunner over the in-memory store answering each
// round trip after <store ms> (a grouped append is two: journal, then commits) and a publisher whose
// produce takes <produce ms>; an open loop of <rate> sends/s over 50 streams for 5 s. Prints send
// (command answered) and event produced (broker acked) p50/p99 from each send's scheduled start, and
// how many produce requests carried them. Point the last argument at another build of
// packages/eventsourcing (e.g. main's) to compare before and after on the same machine, in one process.
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { percentile } from './percentile.mjs';

const [rateArg = '100', storeArg = '1', produceArg = '15', dist = new URL('../packages/eventsourcing/dist', import.meta.url).pathname] = process.argv.slice(2);
const { CommandRunner } = await import(pathToFileURL(`${dist}/index.js`).href);
const { InMemoryCommitStore } = await import(pathToFileURL(`${dist}/testing.js`).href);
const RATE = Number(rateArg);
const STORE_MS = Number(storeArg);
const PRODUCE_MS = Number(produceArg);
const SECONDS = 5;

class SlowStore extends InMemoryCommitStore {
  async readHead(...args) {
    await sleep(STORE_MS);
    return super.readHead(...args);
  }
  async appendBatch(batch) {
    await sleep(STORE_MS);
    this.beginAppend(batch);
    await sleep(STORE_MS);
    return batch.commits.map((commit) => this.appendOne(commit));
  }
  async reservePositions(count) {
    await sleep(STORE_MS);
    return super.reservePositions(count);
  }
  async releaseEntries(ids) {
    await sleep(STORE_MS);
    return super.releaseEntries(ids);
  }
}

const producedAt = new Map();
let produces = 0;
const publisher = {
  publish: async (events) => {
    produces += 1;
    await sleep(PRODUCE_MS);
    const at = performance.now();
    for (const event of events) if (!producedAt.has(event.id)) producedAt.set(event.id, at);
  },
};
const decider = { initialState: () => ({ n: 0 }), decide: (command) => [{ type: 'Added', data: command }], evolve: (state) => ({ n: state.n + 1 }), snapshotVersion: 1 };
const runner = new CommandRunner({ store: new SlowStore(), publisher, readModels: { apply: () => sleep(STORE_MS) }, logger: { warn() {}, info() {} } });
await runner.start();
const metadata = { appId: 'a', actor: { appId: 'a', keyId: 'k', scope: 'fullAccess' }, correlationId: 'c', now: new Date() };
const sendTimes = [];
const total = RATE * SECONDS;
const started = performance.now();
const inFlight = [];
for (let i = 0; i < total; i++) {
  const scheduledAt = started + (i * 1000) / RATE;
  const wait = scheduledAt - performance.now();
  if (wait > 1) await sleep(wait);
  inFlight.push(
    runner.run({ decider, streamId: `s${i % 50}`, command: { i }, metadata, batchable: true }).then((result) => {
      sendTimes.push(performance.now() - scheduledAt);
      return { scheduledAt, id: result.events[0].id };
    }),
  );
}
const sent = await Promise.all(inFlight);
await runner.published(30_000);
await runner.stop();
const eventTimes = sent.map((s) => producedAt.get(s.id) - s.scheduledAt).sort((a, b) => a - b);
sendTimes.sort((a, b) => a - b);
const ms = (v) => v.toFixed(1);
console.log(
  `${dist}: ${RATE}/s, store ${STORE_MS} ms, produce ${PRODUCE_MS} ms: send p50 ${ms(percentile(sendTimes, 50))} p99 ${ms(percentile(sendTimes, 99))} ms; ` +
    `event produced p50 ${ms(percentile(eventTimes, 50))} p99 ${ms(percentile(eventTimes, 99))} ms; ${produces} produces for ${total} events`,
);
