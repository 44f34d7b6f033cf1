// Data import throughput through the gateway: users/s and messages/s imported (50 records a request,
// CometChat's limit, several requests in flight), each divided by the store's raw insertMany docs/s
// measured in the same run (bench/store-raw.mjs), and the time until the last imported message is
// visible in its conversation (conversations service, fed through Kafka).
//
//   node bench/import.mjs [--users 5000] [--messages 5000] [--concurrency 4] [--floor 0,3]
//
// Before our users import, in the same run on the same Kafka and FerretDB, the import's floor (ADR 0131,
// bench/import-floor.mjs): a bare service and bare copying groups doing only what the contract needs,
// with each number of copies in --floor (`none` leaves it out); at the end, ours beside it. With
// SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>" the users import's window is written to
// <dir>/windows.json for bench/cpuProfileSummary.mjs (per user, as `messages`).
//
// For the users it also prints (ADR 0092) the CPU ms per user by process from /proc, from the first
// request until every consumer group has caught up, and the store's write statements, commands and
// write-lock ms per user by collection (the runner's tally, FERRETDB_STATS_INTERVAL=1s unless set):
// how many copies of a user the stack writes, and how well they are grouped. Beside it, the CPU per
// user net of what the idle stack burns anyway (its rate over BENCH_IDLE_SAMPLE=5 s sampled before the
// import × the window): a slower run pays more of that per user, so the net figure is the one to compare.
//
// Messages are imported twice (each conversation's history in a row, then interleaved across 199
// conversations), so the figures show the best and the worst order a migration can send.
//
// Starts Kafka, FerretDB, Redis and the services (bench/stack.mjs) unless KAFKA_BROKERS / MONGO_URL /
// REDIS_URL are set, and stops everything it started when it ends.
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchImportFloor, OUR_COPIES } from './import-floor.mjs';
import { connectKafkaProbe } from './kafkaProbe.mjs';
import { cpuSnapshot, processSyscalls, stackProcesses } from './processCpu.mjs';
import { measureStoreRaw, formatStoreRaw } from './store-raw.mjs';
import { startBenchStack } from './stack.mjs';
import { fileSize, readTally, storeLogOf } from './storeTally.mjs';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '5000' },
    messages: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    floor: { type: 'string', default: `0,${OUR_COPIES}` },
  },
});
const USERS = Number(values.users);
const MESSAGES = Number(values.messages);
const CONCURRENCY = Number(values.concurrency);
const BATCH = 50;
/** Seconds the idle stack is sampled before the users import (BENCH_IDLE_SAMPLE). */
const IDLE_SAMPLE_S = Number(process.env.BENCH_IDLE_SAMPLE ?? 5);
const PEERS = Math.min(USERS, 200);
const FLOOR_COPIES = values.floor === 'none' ? [] : values.floor.split(',').map(Number);
const PROFILE_DIR = /--cpu-prof-dir=(\S+)/.exec(process.env.SERVICE_NODE_ARGS ?? '')?.[1];
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

// The runner's write-lock tally (ADR 0046) gives the store's statements per imported record.
process.env.FERRETDB_STATS_INTERVAL ??= '1s';
const stack = await startBenchStack({ name: 'import bench' });
const probe = await connectKafkaProbe(stack.infra.kafkaBrokers);
const { processes } = stackProcesses(stack);
const services = new Set(stack.services.instances.map((i) => i.service));
const storeLog = storeLogOf(stack.infra.mongoUrl);
const stackGroups = (groupId) => groupId.endsWith(`_${stack.databaseSuffix}`);

/**
 * What `records` imported records cost from the snapshot until every consumer group of the stack has
 * caught up: CPU ms per record by process (from /proc, the figure noise barely moves), and the store's
 * write statements and write-lock ms per record by collection (the runner's tally, one interval late).
 */
async function costSince(from, records) {
  await probe.waitForQuiet(stackGroups, 120_000);
  const cpu = cpuSnapshot(processes).since(from.cpu);
  const until = performance.now();
  const syscalls = syscallSnapshot();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const tally = readTally(storeLog, from.log, fileSize(storeLog), stack.databaseSuffix);
  const total = [...cpu.values()].filter(Number.isFinite).reduce((a, b) => a + b, 0);
  const result = { cpu: total / records, net: Number.NaN, byProcess: new Map([...cpu].map(([name, ms]) => [name, ms / records])) };
  const byProcess = [...cpu].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${(ms / records).toFixed(2)}`);
  console.log(
    `  CPU ms per record: ${(total / records).toFixed(2)} (${byProcess.join(', ')}); at that cost the machine's ` +
      `${availableParallelism()} cores carry at most ${Math.round((availableParallelism() * 1000 * records) / total)} records/s`,
  );
  // Every socket send to the store or the broker is a write system call (ADR 0131): how many a record costs each process.
  const writes = processes.map(({ name }) => [name, (syscalls.get(name).writes - from.syscalls.get(name).writes) / records, (syscalls.get(name).reads - from.syscalls.get(name).reads) / records]);
  console.log(`  system calls per record, write/read: ${writes.filter(([, w]) => Number.isFinite(w) && w > 0.005).sort((a, b) => b[1] - a[1]).map(([name, w, r]) => `${name} ${w.toFixed(2)}/${r.toFixed(2)}`).join(', ')}`);
  if (from.idleRate) {
    // What the idle stack burns anyway over the same window (polling consumers, timers): a slow run pays
    // more of it per record, so the rest is the figure to compare between runs of different speeds.
    const windowS = (until - from.at) / 1000;
    const net = [...cpu].map(([name, ms]) => [name, ms - (from.idleRate.get(name) ?? 0) * windowS]);
    const idleMs = [...from.idleRate.values()].reduce((a, b) => a + b, 0) * windowS;
    result.net = (total - idleMs) / records;
    const netByProcess = net.filter(([, ms]) => Number.isFinite(ms)).sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${(ms / records).toFixed(2)}`);
    console.log(
      `  net of the idle stack: ${((total - idleMs) / records).toFixed(2)} ms per record (${netByProcess.join(', ')}); the idle stack's own ` +
        `${(idleMs / records).toFixed(2)} ms (its rate over ${IDLE_SAMPLE_S} s before the import × the ${windowS.toFixed(1)} s window)`,
    );
  }
  if (tally) {
    const inserted = tally.rows.filter((r) => r.kind === 'write' && r.command === 'insert' && services.has(r.collection.split('.')[0]));
    const copies = inserted.reduce((a, r) => a + r.statements, 0) / records;
    // The store's floor: every inserted copy at the raw insertMany cost, and nothing else on the machine.
    const floorMs = copies * storeMsPerInsertedDocument;
    console.log(
      `  the store's floor: ${copies.toFixed(2)} inserted documents per record × ${storeMsPerInsertedDocument.toFixed(3)} ms of FerretDB CPU ` +
        `(raw insertMany) = ${floorMs.toFixed(2)} ms = at most ${Math.round((availableParallelism() * 1000) / floorMs)} records/s with every core given to FerretDB`,
    );
    // The stack's own databases only (the tally names them `<service>.<collection>`), not the raw baseline's scratch.
    const ours = tally.rows.filter((r) => services.has(r.collection.split('.')[0]));
    const writes = ours.filter((r) => r.kind === 'write').sort((a, b) => b.statements - a.statements);
    const per = (n) => (n / records).toFixed(2);
    const sum = (rows, field) => rows.reduce((a, r) => a + r[field], 0);
    console.log(
      `  store per record: ${per(sum(writes, 'statements'))} write statements in ${per(sum(writes, 'commands'))} commands, ` +
        `${(sum(writes, 'busyMs') / records).toFixed(3)} ms write lock; ${per(sum(ours.filter((r) => r.kind === 'read'), 'commands'))} reads ` +
        `(${writes.slice(0, 8).map((r) => `${r.command} ${r.collection} ${per(r.statements)}/${per(r.commands)}`).join(', ')}: statements/commands)`,
    );
    // Which copies hold the store's write lock longest (ADR 0101): each collection's share per record.
    const byLock = [...writes].sort((a, b) => b.busyMs - a.busyMs);
    console.log(`  write lock per record: ${byLock.slice(0, 8).map((r) => `${r.command} ${r.collection} ${(r.busyMs / records).toFixed(3)} ms`).join(', ')}`);
    const reads = ours.filter((r) => r.kind === 'read').sort((a, b) => b.commands - a.commands);
    console.log(`  reads per record: ${reads.slice(0, 8).map((r) => `${r.command} ${r.collection} ${per(r.commands)}`).join(', ') || 'none'}`);
  }
  return result;
}
/** FerretDB's CPU per document of a raw insertMany, measured at the start of the run. */
let storeMsPerInsertedDocument = Number.NaN;
const syscallSnapshot = () => new Map(processes.map(({ name, pid }) => [name, processSyscalls(pid)]));
const costFrom = () => ({ cpu: cpuSnapshot(processes), syscalls: syscallSnapshot(), log: fileSize(storeLog), at: performance.now() });

try {
  const raw = await measureStoreRaw({ mongoUrl: stack.infra.mongoUrl, sizes: [], durationMs: 3_000 });
  console.log(formatStoreRaw(raw));
  const rawDocs = raw.insertMany.perSecond;
  storeMsPerInsertedDocument = raw.insertMany.storeCpuMs;
  const headers = stack.app.chat;
  // The floor first, on the same broker and store, while our services idle (ADR 0131).
  const floor = FLOOR_COPIES.length > 0 ? await benchImportFloor({ infra: stack.infra, users: USERS, copiesList: FLOOR_COPIES, concurrency: CONCURRENCY }) : [];
  const base = Math.floor(Date.now() / 1000) - 100 * 86_400;

  /** Sends the batches with CONCURRENCY in flight; answers records/s and fails on any refused record. */
  async function importBatches(path, property, batches) {
    let next = 0;
    let refused = 0;
    const started = performance.now();
    const worker = async () => {
      for (let index = next++; index < batches.length; index = next++) {
        const answer = await stack.api('POST', `/v3/data_import/${path}`, { headers, body: { [property]: batches[index] } });
        refused += Object.values(answer.data).filter((r) => !r.success).length;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    const records = batches.reduce((sum, batch) => sum + Object.keys(batch).length, 0);
    if (refused > 0) throw new Error(`${refused} ${property} refused`);
    return records / seconds;
  }

  const uid = (i) => `user${i}`;
  const userBatches = [];
  for (let i = 0; i < USERS; i += BATCH) {
    userBatches.push(
      Object.fromEntries(
        Array.from({ length: Math.min(BATCH, USERS - i) }, (_, k) => [uid(i + k), { uid: uid(i + k), name: `User ${i + k}`, createdAt: base + i + k }]),
      ),
    );
  }
  // What the idle stack burns per second, sampled just before the import (as bench/cost.mjs does).
  const idleFrom = cpuSnapshot(processes);
  const idleStarted = performance.now();
  await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_S * 1000));
  const idleSeconds = (performance.now() - idleStarted) / 1000;
  const idleRate = new Map([...cpuSnapshot(processes).since(idleFrom)].map(([name, used]) => [name, used / idleSeconds]));
  const usersFrom = { ...costFrom(), idleRate };
  const usersRecordsBefore = await probe.eventsIn(['chat.users.events']);
  const usersFromUs = monotonicUs();
  const usersPerSecond = await importBatches('users', 'users', userBatches);
  console.log(`users: ${USERS} imported at ${usersPerSecond.toFixed(0)} users/s = ${(usersPerSecond / rawDocs).toFixed(3)} × raw insertMany`);
  const ours = await costSince(usersFrom, USERS);
  if (PROFILE_DIR) {
    const windows = { pids: Object.fromEntries(processes.map(({ name, pid }) => [pid, name])), load: { fromUs: usersFromUs, toUs: monotonicUs(), messages: USERS } };
    writeFileSync(join(PROFILE_DIR, 'windows.json'), JSON.stringify(windows, null, 2));
  }
  for (const f of floor) {
    const oursBound = Math.round((availableParallelism() * 1000) / ours.cpu);
    console.log(
      `  ours beside the floor with ${f.copies} copies: ${ours.cpu.toFixed(2)} ms per user against ${f.cpuTotal.toFixed(2)} = ${(ours.cpu / f.cpuTotal).toFixed(1)} ×; ` +
        `net of idle ${ours.net.toFixed(2)} against ${f.netTotal.toFixed(2)} = ${(ours.net / f.netTotal).toFixed(1)} ×; machine bound ${oursBound} against ${f.machineBound} users/s (goal 5,000)` +
        `${f.ok ? '' : ' — the floor run was WRONG (see its line)'}`,
    );
  }
  // How many Kafka records the import put on the users topic per user (packs, ADR 0111).
  const usersRecords = (await probe.eventsIn(['chat.users.events'])) - usersRecordsBefore;
  console.log(`  Kafka records per user on chat.users.events: ${(usersRecords / USERS).toFixed(3)}`);

  /**
   * One-on-one history between user0 and PEERS others, in sentAt order, 50 records a request:
   * `interleaved` rotates through the conversations message by message (every request touches 50 of
   * them: the worst case for the conversation read models), `by-conversation` sends each conversation's
   * history in a row, as an export made conversation by conversation does.
   */
  function historyBatches(order, tag) {
    // In a row: histories of 100 messages (two requests each); interleaved: one message per conversation in turn.
    const records = Array.from({ length: MESSAGES }, (_, n) => {
      const peerIndex = order === 'interleaved' ? n % (PEERS - 1) : Math.floor(n / 100);
      const peer = uid(1 + (peerIndex % (PEERS - 1)));
      const [sender, receiver] = n % 2 ? [uid(0), peer] : [peer, uid(0)];
      const muid = `${tag}${n}`;
      return [muid, { muid, sender, receiverType: 'user', receiver, type: 'text', data: { text: `history ${n}` }, sentAt: base + 10_000 + n }];
    });
    const batches = [];
    for (let i = 0; i < records.length; i += BATCH) batches.push(Object.fromEntries(records.slice(i, i + BATCH)));
    return { batches, last: records.at(-1)[1] };
  }

  const byConversation = historyBatches('by-conversation', 'c');
  const byConversationRate = await importBatches('messages', 'messages', byConversation.batches);
  console.log(`messages, each conversation's history in a row: ${MESSAGES} imported at ${byConversationRate.toFixed(0)} messages/s = ${(byConversationRate / rawDocs).toFixed(3)} × raw insertMany`);

  const { batches: messageBatches, last: lastMessage } = historyBatches('interleaved', 'm');
  const importStart = performance.now();
  const messagesPerSecond = await importBatches('messages', 'messages', messageBatches);
  const importedAt = performance.now();
  console.log(`messages, conversations interleaved: ${MESSAGES} imported at ${messagesPerSecond.toFixed(0)} messages/s = ${(messagesPerSecond / rawDocs).toFixed(3)} × raw insertMany`);

  // The last message's conversation, as its receiver sees it: visible once the conversations service
  // has consumed every imported message of that conversation.
  const [lastSender, lastReceiver] = [lastMessage.sender, lastMessage.receiver];
  const deadline = Date.now() + 120_000;
  for (;;) {
    const response = await fetch(`${stack.services.gatewayUrl}/v3/users/${lastSender}/conversation`, {
      headers: { ...headers, onBehalfOf: lastReceiver },
    });
    const body = await response.json();
    if (body.data?.lastMessage?.muid === lastMessage.muid) break;
    if (Date.now() > deadline) throw new Error(`the last imported message never reached its conversation: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const visible = performance.now();
  console.log(
    `visible in conversations: ${((visible - importedAt) / 1000).toFixed(2)} s after the import answered ` +
      `(${((visible - importStart) / 1000).toFixed(2)} s after it began)`,
  );
} finally {
  await probe.close();
  await stack.stop();
}
