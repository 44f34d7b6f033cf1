// Data import throughput through the gateway: users/s and messages/s imported (50 records a request,
// CometChat's limit, several requests in flight), each divided by the store's raw insertMany docs/s
// measured in the same run (bench/store-raw.mjs), and the time until the last imported message is
// visible in its conversation (conversations service, fed through Kafka).
//
//   node bench/import.mjs [--users 5000] [--messages 5000] [--concurrency 4]
//
// Messages are imported twice (each conversation's history in a row, then interleaved across 199
// conversations), so the figures show the best and the worst order a migration can send.
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
  await stack.stop();
}
