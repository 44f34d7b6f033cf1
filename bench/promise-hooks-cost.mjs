// node bench/promise-hooks-cost.mjs — what the promise hooks of `AsyncLocalStorage` cost (node 20: an
// async hook with promise tracking, on for every promise of the process once any storage has run; ADR
// 0105). Three figures:
//  1. per promise, in this process: a chain of awaits (6 promises a step) timed in slices of
//     BENCH_STEPS steps, alternately outside any storage and inside two nested `run`s (as a request is
//     served today), the storages disabled after each slice so the hook is off again; many short
//     alternating slices make the ratio robust to the machine's load. Prints the extra ns per promise.
//  2. promises per store command: the send path's store commands — the app's id counter
//     (`findOneAndUpdate` $inc, upsert), a journal entry (`insertOne`), two commits (`insertMany`), a read of
//     two documents by `_id` (`find` $in) — counted with an init hook (a count, not a time).
//  3. CPU per store command in a child process per variant (plain: no storage; als1: one `run`; als2: two
//     nested), alternated over BENCH_ROUNDS rounds of BENCH_COMMANDS commands; a CPU-time figure, which a
//     loaded machine moves by ±40 % between rounds (read 1 × 2 instead when it does).
// Starts only FerretDB on MONGO_PORT unless MONGO_URL is set (store-raw.mjs's `storeForBench`).
// Knobs: BENCH_SLICES (60), BENCH_STEPS (20000), BENCH_VARIANTS (plain,als1,als2), BENCH_ROUNDS (4; 0 skips part 3),
// BENCH_COMMANDS (4000), BENCH_WARMUP (300).
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { storeForBench } from './store-raw.mjs';

const COMMANDS_PER_SEND = 4;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sends = Math.round(Number(process.env.BENCH_COMMANDS ?? 4000) / COMMANDS_PER_SEND);
const warmup = Number(process.env.BENCH_WARMUP ?? 300);

/** The send path's four store commands, one after the other, as one function. */
function sendOf(db) {
  const [counters, journal, commits] = ['counters', 'journal', 'commits'].map((name) => db.collection(name));
  const text = 'x'.repeat(600);
  let next = 0;
  return async () => {
    const key = `${process.pid}-${next++}`;
    await counters.findOneAndUpdate({ _id: 'app' }, { $inc: { n: 1 } }, { upsert: true, returnDocument: 'after' });
    await journal.insertOne({ _id: key, commits: [`${key}@1`, `${key}@2`], at: new Date() });
    await commits.insertMany([{ _id: `${key}-a`, events: [{ data: { text } }] }, { _id: `${key}-b`, events: [{ data: { text } }] }], { ordered: false });
    await commits.find({ _id: { $in: [`${key}-a`, `${key}-b`] } }).toArray();
  };
}

/** One child: the store commands of `count` sends in series, in the variant's scopes. */
async function child(variant, mongoUrl) {
  const client = new MongoClient(mongoUrl, { maxPoolSize: 50 });
  await client.connect();
  const send = sendOf(client.db('promise_hooks_cost'));
  const serial = async (count) => {
    for (let i = 0; i < count; i++) await send();
  };
  const inScopes = (count) => {
    if (variant === 'plain') return serial(count);
    const outer = new AsyncLocalStorage();
    if (variant === 'als1') return outer.run({ requestId: 'r' }, () => serial(count));
    const inner = new AsyncLocalStorage();
    return outer.run({ requestId: 'r' }, () => inner.run(new Map(), () => serial(count)));
  };
  await inScopes(warmup);
  const before = process.cpuUsage();
  await inScopes(sends);
  const used = process.cpuUsage(before);
  await client.close();
  return { usPerCommand: (used.user + used.system) / (sends * COMMANDS_PER_SEND), userShare: used.user / (used.user + used.system) };
}

if (process.argv[2] === 'child') {
  process.send(await child(process.argv[3], process.env.BENCH_MONGO_URL));
  process.exit(0);
}

/** Part 1: extra CPU per promise with the hooks on, slices alternated in this process. */
async function perPromise() {
  const steps = Number(process.env.BENCH_STEPS ?? 20_000);
  const slices = Number(process.env.BENCH_SLICES ?? 60);
  const leaf = async (x) => x + 1;
  const step = async (x) => Promise.resolve(await leaf(x));
  const chain = async (n) => {
    let x = 0;
    for (let i = 0; i < n; i++) x = await step(x);
    return x;
  };
  let promises = 0;
  const counter = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) }).enable();
  await chain(1_000);
  counter.disable();
  const perStep = promises / 1_000;
  const outer = new AsyncLocalStorage();
  const inner = new AsyncLocalStorage();
  const slice = async (hooked) => {
    const before = process.cpuUsage();
    if (hooked) await outer.run({ requestId: 'r' }, () => inner.run(new Map(), () => chain(steps)));
    else await chain(steps);
    const used = process.cpuUsage(before);
    // Disabled, the last storage turns the hook off again: the next plain slice runs without it.
    outer.disable();
    inner.disable();
    return (used.user + used.system) / steps;
  };
  const times = { plain: [], hooked: [] };
  for (let i = 0; i < 5; i++) await slice(i % 2 === 0);
  for (let i = 0; i < slices; i++) {
    for (const hooked of i % 2 === 0 ? [false, true] : [true, false]) times[hooked ? 'hooked' : 'plain'].push(await slice(hooked));
  }
  const plain = median(times.plain);
  const hooked = median(times.hooked);
  console.log(`per promise: ${perStep} promises a step, ${(plain * 1000).toFixed(0)} ns a step without the hook, ${(hooked * 1000).toFixed(0)} with it (×${(hooked / plain).toFixed(2)}): ${(((hooked - plain) / perStep) * 1000).toFixed(0)} ns more per promise`);
}

/** Part 2: how many promises the store client creates per command (a count). */
async function promisesPerCommand(mongoUrl) {
  const client = new MongoClient(mongoUrl, { maxPoolSize: 50 });
  await client.connect();
  const send = sendOf(client.db('promise_hooks_cost'));
  for (let i = 0; i < 50; i++) await send();
  let promises = 0;
  const counter = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) }).enable();
  const sendsCounted = 200;
  for (let i = 0; i < sendsCounted; i++) await send();
  counter.disable();
  await client.close();
  console.log(`promises per store command: ${(promises / (sendsCounted * COMMANDS_PER_SEND)).toFixed(1)} (the send path's four commands, ${sendsCounted} times)`);
}

const variants = (process.env.BENCH_VARIANTS ?? 'plain,als1,als2').split(',');
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const { mongoUrl, stop } = await storeForBench();
const figures = Object.fromEntries(variants.map((variant) => [variant, []]));
try {
  await perPromise();
  await promisesPerCommand(mongoUrl);
  for (let round = 0; round < rounds; round++) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      const result = await new Promise((resolve, reject) => {
        const process_ = fork(fileURLToPath(import.meta.url), ['child', variant], { env: { ...process.env, BENCH_MONGO_URL: mongoUrl } });
        process_.on('message', resolve);
        process_.on('error', reject);
        process_.on('exit', (code) => (code ? reject(new Error(`${variant}: child exited ${code}`)) : undefined));
      });
      figures[variant].push(result.usPerCommand);
      console.log(`round ${round + 1} ${variant.padEnd(5)} ${result.usPerCommand.toFixed(1)} µs CPU per command (user ${(result.userShare * 100).toFixed(0)} %)`);
    }
  }
  const base = median(figures[variants[0]]);
  for (const variant of rounds > 0 ? variants : []) {
    const value = median(figures[variant]);
    console.log(`${variant.padEnd(5)} median ${value.toFixed(1)} µs per command, ×${(value / base).toFixed(2)} of ${variants[0]} (${figures[variant].map((v) => v.toFixed(0)).join(', ')})`);
  }
} finally {
  await stop();
}
