// node bench/watermark-reads.mjs — Kafka requests per watermark read (a fence round, an admission
// reading; ADR 0072): kafkajs's fetchTopicOffsets per topic, as LagReader.highWatermarks read them
// before, against one fetchTopicEnds for all topics (our kafkajs patch), on the devstack's broker
// (KAFKA_PORT). Counts each client's requests by API from kafkajs's debug log: no timing, no noise.
import { pathToFileURL } from 'node:url';
import { startInfrastructure } from '@chat/devstack';

const dist = new URL('../packages/kafka/dist/index.js', import.meta.url).pathname;
const { LagReader, ensureTopics } = await import(pathToFileURL(dist).href);
const { Kafka, logLevel } = await import(pathToFileURL(new URL('../packages/kafka/node_modules/kafkajs/index.js', import.meta.url).pathname).href);

const ROUNDS = 20;
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
} finally {
  await infra.stop();
}
