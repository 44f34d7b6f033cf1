// node bench/watermark-reads.mjs — Kafka requests per watermark read (a fence round, an admission
// reading; ADR 0072): kafkajs's fetchTopicOffsets per topic, as LagReader.highWatermarks read them
// before, against one fetchTopicEnds for all topics (our kafkajs patch), on the devstack's broker
// (KAFKA_PORT). Counts each client's requests by API from kafkajs's debug log (no timing, no noise),
// then the broker's CPU (/proc) per read for the two topics of a notifications fence round, the shapes
// alternating, BENCH_READS reads back to back per turn, less the broker's idle rate over the turn.
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startInfrastructure } from '@chat/devstack';
import { pidFromFile, processCpuMs } from './processCpu.mjs';

const dist = new URL('../packages/kafka/dist/index.js', import.meta.url).pathname;
const { LagReader, ensureTopics } = await import(pathToFileURL(dist).href);
const { Kafka, logLevel } = await import(pathToFileURL(new URL('../packages/kafka/node_modules/kafkajs/index.js', import.meta.url).pathname).href);

const ROUNDS = 20;
const READS = Number(process.env.BENCH_READS ?? 300);
const TURNS = Number(process.env.BENCH_TURNS ?? 3);
const infra = await startInfrastructure({ parts: ['kafka'], log: () => undefined });
function client(tally) {
  return new Kafka({
    clientId: 'watermark-reads',
    brokers: infra.kafkaBrokers.split(','),
    logLevel: logLevel.DEBUG,
    logCreator: () => (entry) => {
      const api = /^Request (\w+)\(/.exec(entry.log.message)?.[1];
      if (api && api !== 'ApiVersions') tally.set(api, (tally.get(api) ?? 0) + 1);
    },
  });
}
const shapes = {
  'fetchTopicOffsets per topic (before)': (admin, topics) => Promise.all(topics.map((topic) => admin.fetchTopicOffsets(topic))),
  'fetchTopicEnds (LagReader.highWatermarks)': (_admin, topics, reader) => reader.highWatermarks(topics),
};
try {
  // A broker restarted on old data names partition leaders a moment before it serves them.
  await sleep(3_000);
  const setup = client(new Map());
  for (const topics of [['chat.management.events'], ['chat.notifications.events', 'chat.users.events'], ['chat.users.events', 'chat.conversations.events', 'chat.messages.events']]) {
    await ensureTopics(setup, topics, 3);
    for (const [name, read] of Object.entries(shapes)) {
      const tally = new Map();
      const kafka = client(tally);
      const admin = kafka.admin();
      await admin.connect();
      const reader = new LagReader(kafka);
      await read(admin, topics, reader);
      tally.clear();
      for (let i = 0; i < ROUNDS; i++) await read(admin, topics, reader);
      const perRound = [...tally].map(([api, n]) => `${api} ${n / ROUNDS}`).join(', ');
      console.log(`${topics.length} topic(s), ${name}: ${perRound} per read`);
      await reader.close();
      await admin.disconnect();
    }
  }
  const pid = pidFromFile(`kafka-${infra.kafkaBrokers.split(',')[0].split(':').pop()}`);
  if (pid === undefined) throw new Error('no pid file for the broker');
  const topics = ['chat.notifications.events', 'chat.users.events'];
  const kafka = client(new Map());
  const admin = kafka.admin();
  await admin.connect();
  const reader = new LagReader(kafka);
  const perRead = new Map(Object.keys(shapes).map((name) => [name, []]));
  for (let turn = 0; turn < TURNS; turn++) {
    for (const [name, read] of Object.entries(shapes)) {
      await read(admin, topics, reader);
      const idleFrom = processCpuMs(pid);
      await sleep(2_000);
      const idleRate = (processCpuMs(pid) - idleFrom) / 2_000;
      const from = processCpuMs(pid);
      const started = performance.now();
      for (let i = 0; i < READS; i++) await read(admin, topics, reader);
      const elapsed = performance.now() - started;
      perRead.get(name).push((processCpuMs(pid) - from - idleRate * elapsed) / READS);
    }
  }
  for (const [name, list] of perRead) console.log(`broker CPU per read of 2 topics, ${name}: ${list.map((v) => v.toFixed(3)).join(' / ')} ms`);
  await reader.close();
  await admin.disconnect();
} finally {
  await infra.stop();
}
