// What the two-build A/B benches share (send-path-cpu.mjs for CPU, send-latency-ab.mjs for latency): the
// build roots from the command line, the rounds' order, and one build's round on the shared Kafka,
// FerretDB and Redis — its services and gateway (its own compiled `dist`, its own databases), an app,
// the cost bench's traffic, and a warm-up after which every consumer group is idle.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { registerShutdown, startInfrastructure, startServices } from '@chat/devstack';
import { buildAgedHistory, databaseBytes, waitForStoreToSettle, warmAgedStore } from './agedHistory.mjs';
import { createGatewayClient } from './httpClient.mjs';
import { connectKafkaProbe } from './kafkaProbe.mjs';
import { stackProcesses } from './processCpu.mjs';
import { createTraffic } from './traffic.mjs';

/**
 * Neither the backlog gate nor the latency-driven admission sheds here: on a machine shared with other
 * work a refused send still costs CPU but would not count as a message, and the builds would be
 * compared on different work.
 */
const UNSHED = { BACKLOG_MAX_DRAIN_MS: '0', TARGET_LATENCY_MS: '30000', MAX_QUEUE_WAIT_MS: '30000' };

/** The two build roots given after the script's name (each a checkout with `tsc -b` done). */
export function buildRootsFromArgs(script) {
  const roots = process.argv.slice(2, 4).map((root) => resolve(root));
  if (roots.length !== 2 || roots.some((root) => !existsSync(join(root, 'services', 'messages', 'dist', 'main.js')))) {
    throw new Error(`usage: node bench/${script} <build root A> <build root B> (each with services/*/dist built)`);
  }
  return roots;
}

/**
 * The Kafka, FerretDB and Redis both builds' rounds share, and a probe on the broker. Whatever is running
 * is stopped on Ctrl-C or failure too: the round set up last (`registerStop`, handed to startBuildRound),
 * then the infrastructure. `stopRound` stops the current round's build; `stop` the probe, it and the rest.
 */
export async function startSharedInfrastructure() {
  let stopRound = async () => undefined;
  let infra;
  registerShutdown(async () => {
    await stopRound();
    await infra?.stop();
  });
  infra = await startInfrastructure({ freshKafkaData: true });
  const probe = await connectKafkaProbe(infra.kafkaBrokers);
  return {
    infra,
    probe,
    registerStop: (stop) => {
      stopRound = stop;
    },
    stopRound: () => stopRound(),
    async stop() {
      await probe.close();
      await stopRound();
      await infra.stop();
    },
  };
}

/**
 * BENCH_STORE_ENV="<A's>|<B's>" (e.g. "FERRETDB_SQLITE_PRAGMAS=cache_size(-2000)|FERRETDB_SQLITE_PRAGMAS=cache_size(-65536)"): two
 * settings of the shared store to alternate instead of (or beside) two builds, each side space-separated
 * NAME=value variables the devstack reads when it starts the runner (ADR 0155). Null when not given.
 */
export function storeSettingsFromEnv() {
  const given = process.env.BENCH_STORE_ENV;
  if (!given) return null;
  const sides = given.split('|').map((side) => Object.fromEntries(side.trim().split(/\s+/).filter(Boolean).map((kv) => kv.split('='))));
  if (sides.length !== 2) throw new Error('BENCH_STORE_ENV: two sides, "<A>|<B>"');
  return sides;
}

/**
 * Restarts the shared FerretDB with side `which`'s variables of storeSettingsFromEnv(); nothing without them.
 * Once `aged` databases exist (ageDatabases), the restarted store's connections read them as a long-running
 * store's have (warmAgedStore, ADR 0164).
 */
export async function useStoreSettings(infra, settings, which, aged) {
  if (!settings) return;
  for (const [name, value] of Object.entries(settings[which])) process.env[name] = value;
  await infra.restart('ferretdb');
  if (aged?.built) await warmAgedStore(infra.mongoUrl, aged.databaseSuffix);
}

/**
 * BENCH_AGED=1 (ADR 0161): B's rounds all run on one set of databases aged once before the first round, A's on
 * new databases each round; with the same root twice, B ÷ A is issue 23's aged ÷ fresh in alternated rounds on
 * one store. BENCH_AGED=both (ADR 0164): every round, A's and B's, on those aged databases, to compare two
 * settings of the store (BENCH_STORE_ENV) on aged data. Returns the aged databases' suffix, the sides that use
 * it (agedSuffixOf) and the knobs, or null without BENCH_AGED.
 */
export function agedSideFromEnv(suffixPrefix) {
  const given = process.env.BENCH_AGED;
  if (!given) return null;
  if (given !== '1' && given !== 'both') throw new Error('BENCH_AGED: 1 (B on aged databases) or both');
  return {
    sides: given === 'both' ? [0, 1] : [1],
    databaseSuffix: `${suffixPrefix}aged${randomBytes(3).toString('hex')}`,
    targetBytes: Number(process.env.BENCH_AGED_BYTES ?? 2 ** 30),
    lightApps: Number(process.env.BENCH_AGED_LIGHT_APPS ?? 2000),
  };
}

/** The aged databases' suffix for side `which`'s rounds (startBuildRound's `databaseSuffix`), else undefined (new ones). */
export function agedSuffixOf(aged, which) {
  return aged?.sides.includes(which) ? aged.databaseSuffix : undefined;
}

/** What the benches' first line says of the aged side: '' without BENCH_AGED. */
export function agedLabel(aged) {
  if (!aged) return '';
  return aged.sides.length === 2 ? ' (A and B on aged databases)' : ' (B on aged databases)';
}

/**
 * Ages the databases of `aged.databaseSuffix` after a round on them: `templateApp` (that round's app) copied until
 * they hold `aged.targetBytes`, plus `aged.lightApps` configuration-only apps (bench/agedHistory.mjs), then the
 * copy's dirty pages synced and the store left to settle. Prints what it built.
 */
export async function ageDatabases(infra, aged, templateApp, storePid) {
  const started = performance.now();
  const built = await buildAgedHistory({ mongoUrl: infra.mongoUrl, databaseSuffix: aged.databaseSuffix, templateApps: [templateApp], targetBytes: aged.targetBytes, lightApps: aged.lightApps });
  const settle = await waitForStoreToSettle(storePid);
  aged.built = true;
  console.log(
    `B's databases (${aged.databaseSuffix}) aged in ${((performance.now() - started) / 1000).toFixed(0)} s: ${built.heavyCopies} full copies of a round's app, ${built.lightApps} configuration-only apps, ` +
      `${(built.bytesBefore / 2 ** 20).toFixed(0)} → ${(databaseBytes(infra.mongoUrl, aged.databaseSuffix).bytes / 2 ** 20).toFixed(0)} MiB; the store ${settle.settled ? 'settled' : 'still busy'} after ${settle.seconds.toFixed(0)} s`,
  );
}

/** Drops the aged databases at the end (their GiB would stay in the port's data directory). */
export async function dropAgedDatabases(infra, aged) {
  const mongo = new MongoClient(infra.mongoUrl);
  try {
    for (const { name } of (await mongo.db('admin').admin().listDatabases()).databases) if (name.endsWith(`_${aged.databaseSuffix}`)) await mongo.db(name).dropDatabase();
  } finally {
    await mongo.close();
  }
}

/** Build index per round, A B B A A B …: a drift in the machine's other load falls on both builds alike. */
export function alternatingOrder(rounds) {
  return Array.from({ length: rounds }, (_, i) => ((i + 1) >> 1) % 2);
}

/**
 * Starts one build's stack with an app and its traffic (`pairs` one-on-one pairs, `groups` of `groupSize`),
 * warmed up at `warmUpRate` for 3 s and then left until every consumer group of this round is idle.
 * `databaseSuffix` reuses databases an earlier round left (send-latency-ab.mjs's aged side), else the round's are new.
 * `stop()` stops the build's processes (once); it is handed to `registerStop` as soon as they run, so the
 * caller's shutdown hook stops them on Ctrl-C during the set-up too.
 */
export async function startBuildRound({ infra, probe, root, name, suffixPrefix, targetPrefix, pairs, groups, groupSize, warmUpRate, idleTimeoutS, extraEnv = {}, registerStop, beforeWarmUp, databaseSuffix }) {
  const suffix = databaseSuffix ?? `${suffixPrefix}${randomBytes(3).toString('hex')}`;
  const services = await startServices({ ...infra, ports: 'ephemeral', databaseSuffix: suffix, repoRoot: root, extraEnv: { LOG_LEVEL: 'warn', ...UNSHED, ...extraEnv }, log: () => undefined });
  const client = createGatewayClient(services.gatewayUrl, { timeoutMs: 10_000 });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    client.close();
    await services.stop();
  };
  registerStop(stop);
  try {
    const created = await fetch(`${services.gatewayUrl}/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', key: services.managementKey, secret: services.managementSecret },
      body: JSON.stringify({ name, region: 'us' }),
    }).then((r) => r.json());
    const appId = created.data.id;
    const apiKey = Object.values(created.data.apiKeys).find((k) => k.scope === 'fullAccess').apiKey;
    const traffic = createTraffic({ client, chat: { appid: appId, apikey: apiKey }, setupTimeoutS: 120 });
    const targets = await traffic.createTargets({ prefix: targetPrefix, pairs, groups, groupSize, patienceMs: 120_000 });
    const round = { suffix, services, client, appId, apiKey, traffic, targets, ours: (groupId) => groupId.endsWith(`_${suffix}`), stop };
    await beforeWarmUp?.(round);
    // A first short load warms up each process's code paths, then everything settles.
    await traffic.openLoop(targets, warmUpRate, { seconds: 3, visibleSamplesPerSecond: 0, pollBudgetPerSecond: 1, visibleTimeoutS: 1 });
    await probe.waitForQuiet(round.ours, idleTimeoutS * 1000);
    await sleep(2_000);
    // Idle consumer groups are not an idle stack: a new round's groups read the topics from their start, so its
    // webhooks and push services also deliver every earlier round's events (to the shared receivers) and record
    // each outcome — store work that outlasts the lag by tens of seconds and grows with the rounds before it.
    // The round is measured once the store's process is quiet.
    round.storePid = stackProcesses({ infra, services }).processes.find((p) => p.name === 'ferretdb')?.pid;
    const settle = await waitForStoreToSettle(round.storePid, { maxS: 120 });
    if (!settle.settled) console.log(`  (${name}: the store still busy ${settle.seconds.toFixed(0)} s after the warm-up; measuring anyway)`);
    return round;
  } catch (error) {
    await stop();
    throw error;
  }
}
