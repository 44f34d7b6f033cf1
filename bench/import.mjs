// Data import throughput through the gateway: users/s and messages/s imported (50 records a request,
// CometChat's limit, several requests in flight), each divided by the store's raw insertMany docs/s
// measured in the same run (bench/store-raw.mjs), and the time until the last imported message is
// visible in its conversation (conversations service, fed through Kafka).
//
//   node bench/import.mjs [--users 5000] [--messages 5000] [--concurrency 8]
//
// Starts Kafka, FerretDB, Redis and the services (bench/stack.mjs) unless KAFKA_BROKERS / MONGO_URL /
// REDIS_URL are set, and stops everything it started when it ends.
import { parseArgs } from 'node:util';
import { measureStoreRaw, formatStoreRaw } from './store-raw.mjs';
import { startBenchStack } from './stack.mjs';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '5000' },
    messages: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
  },
});
const USERS = Number(values.users);
const MESSAGES = Number(values.messages);
const CONCURRENCY = Number(values.concurrency);
const BATCH = 50;
const PEERS = Math.min(USERS, 200);

const stack = await startBenchStack({ name: 'import bench' });
try {
  const raw = await measureStoreRaw({ mongoUrl: stack.infra.mongoUrl, sizes: [], durationMs: 3_000 });
  console.log(formatStoreRaw(raw));
  const rawDocs = raw.insertMany.perSecond;
  const headers = stack.app.chat;
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
  const usersPerSecond = await importBatches('users', 'users', userBatches);
  console.log(`users: ${USERS} imported at ${usersPerSecond.toFixed(0)} users/s = ${(usersPerSecond / rawDocs).toFixed(3)} × raw insertMany`);

  // One-on-one history between user0 and PEERS others, in sentAt order.
  const messageBatches = [];
  for (let i = 0; i < MESSAGES; i += BATCH) {
    messageBatches.push(
      Object.fromEntries(
        Array.from({ length: Math.min(BATCH, MESSAGES - i) }, (_, k) => {
          const n = i + k;
          const peer = uid(1 + (n % (PEERS - 1)));
          const [sender, receiver] = n % 2 ? [uid(0), peer] : [peer, uid(0)];
          return [`m${n}`, { muid: `m${n}`, sender, receiverType: 'user', receiver, type: 'text', data: { text: `history ${n}` }, sentAt: base + 10_000 + n }];
        }),
      ),
    );
  }
  const importStart = performance.now();
  const messagesPerSecond = await importBatches('messages', 'messages', messageBatches);
  const importedAt = performance.now();
  console.log(`messages: ${MESSAGES} imported at ${messagesPerSecond.toFixed(0)} messages/s = ${(messagesPerSecond / rawDocs).toFixed(3)} × raw insertMany`);

  // The last message's conversation, as its receiver sees it: visible once the conversations service
  // has consumed every imported message of that conversation.
  const last = MESSAGES - 1;
  const lastPeer = uid(1 + (last % (PEERS - 1)));
  const [lastSender, lastReceiver] = last % 2 ? [uid(0), lastPeer] : [lastPeer, uid(0)];
  const deadline = Date.now() + 120_000;
  for (;;) {
    const response = await fetch(`${stack.services.gatewayUrl}/v3/users/${lastSender}/conversation`, {
      headers: { ...headers, onBehalfOf: lastReceiver },
    });
    const body = await response.json();
    if (body.data?.lastMessage?.muid === `m${last}`) break;
    if (Date.now() > deadline) throw new Error(`the last imported message never reached its conversation: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const visible = performance.now();
  console.log(
    `visible in conversations: ${((visible - importedAt) / 1000).toFixed(2)} s after the import answered ` +
      `(${((visible - importStart) / 1000).toFixed(2)} s after it began)`,
  );
} finally {
  await stack.stop();
}
