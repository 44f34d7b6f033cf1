// The processes of bench/floor.mjs's minimal pipeline, each a process of its own so /proc gives its CPU:
//   node floor-parts.mjs express-proxy <upstream>  express + http-proxy-middleware in front of <upstream>
//   node floor-parts.mjs service                   the send: group commit, grouped inserts, one produce
//   node floor-parts.mjs read-model                the receiver's conversation: last message + unread
//   node floor-parts.mjs deliveries                features on: a webhook POST and a push call per message
// Nothing of the platform's code runs here but the Kafka client factory (@chat/kafka's createKafka, so
// the client settings are ours); the configuration comes as JSON in FLOOR_CONFIG. Each reports its
// port (or that it is ready) over IPC and exits on SIGTERM after closing its clients.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { MongoClient } from 'mongodb';
import { createKafka, loadKafkaSecurity } from '../packages/kafka/dist/index.js';

const role = process.argv[2];
const config = JSON.parse(process.env.FLOOR_CONFIG ?? '{}');
/** Ids a service takes from the store at once: one findAndModify per this many messages. */
const ID_BLOCK = 1_000;
// kafkajs' errors, one line each, but not the coordinator's retried 'not available' of a fresh broker.
const quiet = {
  error: (detail, message) => {
    if (!/not available/i.test(String(detail?.error))) console.error(`floor ${role}: ${message}: ${detail?.error ?? ''}`);
  },
  warn: () => {},
  info: () => {},
};
const closers = [];
process.once('SIGTERM', async () => {
  for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
  process.exit(0);
});

if (role === 'express-proxy') await expressProxy(process.argv[3]);
else if (role === 'service') await service();
else if (role === 'read-model') await readModel();
else if (role === 'deliveries') await deliveries();
else throw new Error(`floor-parts: unknown role ${role}`);

/** The same forwarding as the gateway's library, on express as the brief compares it. */
async function expressProxy(upstream) {
  const gatewayRequire = createRequire(new URL('../gateway/package.json', import.meta.url));
  const express = gatewayRequire('express');
  const { createProxyMiddleware } = gatewayRequire('http-proxy-middleware');
  const app = express();
  app.use(createProxyMiddleware({ target: upstream, agent: new http.Agent({ keepAlive: true, maxSockets: 256 }) }));
  const server = app.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
  closers.push(() => server.close());
}

function kafkaClient(name) {
  return createKafka(`floor-${name}`, config.kafkaBrokers.split(','), quiet, loadKafkaSecurity(process.env));
}

/** One-on-one conversations are named by their two users, groups by their guid. */
function conversationOf(sender, receiver, receiverType) {
  return receiverType === 'group' ? `group_${receiver}` : [sender, receiver].sort().join('_user_');
}

/**
 * A send, and nothing but what its contract needs: the commit (the event) and the message document
 * written durably (grouped insertMany: every request that arrived while the previous group was being
 * written goes in the next one), the event produced to Kafka (one batch per group, the services'
 * producer settings: idempotent, acks from all replicas), then the answer with the message. Left out:
 * the API key and the sender's look-ups, validation beyond JSON (bench/floor.mjs says so).
 */
async function service() {
  const mongo = new MongoClient(config.mongoUrl, { maxPoolSize: 4 });
  await mongo.connect();
  closers.push(() => mongo.close());
  const db = mongo.db(config.database);
  const commits = db.collection('commits');
  const messages = db.collection('messages');
  const sequences = db.collection('message_sequences');
  const producer = kafkaClient('service').producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  closers.push(() => producer.disconnect());
  const blocked = new Set(config.blockedWords ?? []);

  let nextId = 0;
  let lastId = -1;
  async function takeIds(count) {
    if (nextId + count - 1 > lastId) {
      const block = Math.max(ID_BLOCK, count);
      const taken = await sequences.findOneAndUpdate({ _id: config.appId }, { $inc: { next: block } }, { upsert: true, returnDocument: 'after' });
      lastId = taken.next;
      nextId = lastId - block + 1;
    }
    const first = nextId;
    nextId += count;
    return first;
  }

  let pending = [];
  let writing = false;
  async function commitGroups() {
    writing = true;
    while (pending.length > 0) {
      const group = pending;
      pending = [];
      try {
        const first = await takeIds(group.length);
        const now = Date.now();
        const docs = group.map(({ sender, body }, i) => {
          const id = first + i;
          return {
            _id: `${config.appId}:${id}`,
            appId: config.appId,
            id,
            conversationId: conversationOf(sender, body.receiver, body.receiverType),
            sender,
            receiver: body.receiver,
            receiverType: body.receiverType,
            category: 'message',
            type: body.type,
            data: body.data,
            sentAt: now,
            updatedAt: now,
          };
        });
        const events = docs.map((message) => ({ _id: `${message._id}:sent`, type: 'MessageSent', appId: config.appId, stream: message.conversationId, at: now, data: message }));
        await commits.insertMany(events);
        await messages.insertMany(docs);
        await producer.send({
          topic: config.topic,
          acks: -1,
          messages: events.map((event) => ({ key: event.stream, value: JSON.stringify(event), headers: { type: event.type, appId: event.appId } })),
        });
        group.forEach(({ res }, i) => answer(res, 200, { data: docs[i] }));
      } catch (error) {
        console.error('floor service: a group failed', error);
        for (const { res } of group) answer(res, 503, { error: { code: 'ERR_SERVICE_UNAVAILABLE', message: 'the group could not be written' } });
      }
    }
    writing = false;
  }

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return answer(res, 400, { error: { code: 'ERR_BAD_REQUEST', message: 'the body is not JSON' } });
      }
      // Features on: the blocking keyword rule, one word at a time against a set.
      if (blocked.size > 0 && String(body.data?.text ?? '').toLowerCase().split(/\W+/).some((word) => blocked.has(word))) {
        return answer(res, 400, { error: { code: 'ERR_BLOCKED', message: 'blocked by a moderation rule' } });
      }
      pending.push({ sender: String(req.headers.onbehalfof), body, res });
      if (!writing) void commitGroups();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
  closers.push(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
}

function answer(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A consumer group on the events topic; `apply` gets each partition's batch and must be idempotent. */
async function consume(groupId, apply) {
  const consumer = kafkaClient(groupId).consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1_000, maxWaitTimeInMs: 100 });
  await consumer.connect();
  closers.push(() => consumer.disconnect());
  await consumer.subscribe({ topic: config.topic, fromBeginning: true });
  const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
  await consumer.run({
    partitionsConsumedConcurrently: 3,
    eachBatch: async ({ batch }) => {
      if (batch.messages.length > 0) await apply(batch.messages.map((m) => JSON.parse(m.value.toString('utf8'))));
    },
  });
  await joined;
  process.send?.({ ready: true });
}

/**
 * The receiver's conversation, exact and in the store's cheapest shape: one document per conversation
 * holding its last message and every member's unread count, replaced whole by `{_id}` (one statement
 * per conversation per batch, all of a batch's in one command; inserted the first time). A conversation's events are on one
 * partition, so this consumer is its only writer and keeps the documents it wrote; one it has not seen
 * is read once by `_id $in`. `position` (the last applied message id) makes a redelivered event a no-op.
 */
async function readModel() {
  const mongo = new MongoClient(config.mongoUrl, { maxPoolSize: 4 });
  await mongo.connect();
  closers.push(() => mongo.close());
  const conversations = mongo.db(config.database).collection('conversations');
  const members = new Map(Object.entries(config.groupMembers ?? {}));
  const known = new Map();
  const stored = new Set();
  await consume(config.groupId, async (events) => {
    const unseen = [...new Set(events.map((e) => e.stream))].filter((id) => !known.has(id));
    if (unseen.length > 0) {
      for (const doc of await conversations.find({ _id: { $in: unseen } }).toArray()) {
        known.set(doc._id, doc);
        stored.add(doc._id);
      }
    }
    const touched = new Map();
    for (const { stream, data: message } of events) {
      const doc = known.get(stream) ?? { _id: stream, appId: message.appId, position: -1, lastMessage: null, unread: {} };
      if (message.id <= doc.position) continue;
      const receivers = message.receiverType === 'group' ? (members.get(message.receiver) ?? []).filter((uid) => uid !== message.sender) : [message.receiver];
      for (const uid of receivers) doc.unread[uid] = (doc.unread[uid] ?? 0) + 1;
      doc.lastMessage = { id: message.id, sender: message.sender, type: message.type, data: message.data, sentAt: message.sentAt };
      doc.position = message.id;
      known.set(stream, doc);
      touched.set(stream, doc);
    }
    if (touched.size === 0) return;
    // A conversation's first message inserts its document, every later one replaces it: no upsert,
    // which would look the document up first.
    await conversations.bulkWrite(
      [...touched.values()].map((doc) => (stored.has(doc._id) ? { replaceOne: { filter: { _id: doc._id }, replacement: doc } } : { insertOne: { document: doc } })),
      { ordered: false },
    );
    for (const id of touched.keys()) stored.add(id);
  });
}

/**
 * Features on: per message one signed webhook POST to the tenant's receiver and one push call to its
 * provider (all of a batch's at once, on keep-alive sockets), then every delivery recorded, one document
 * each, in one insertMany per batch. Ids make a redelivered batch's records duplicates, not extras.
 */
async function deliveries() {
  const mongo = new MongoClient(config.mongoUrl, { maxPoolSize: 4 });
  await mongo.connect();
  closers.push(() => mongo.close());
  const log = mongo.db(config.database).collection('deliveries');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const members = new Map(Object.entries(config.groupMembers ?? {}));
  const post = (url, body, headers = {}) =>
    new Promise((resolve) => {
      const text = JSON.stringify(body);
      const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers } }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.setTimeout(5_000, () => request.destroy(new Error('timeout')));
      request.on('error', () => resolve(0));
      request.end(text);
    });
  await consume(config.groupId, async (events) => {
    const records = [];
    await Promise.all(
      events.map(async ({ data: message }) => {
        const hook = { trigger: 'message_sent', appId: message.appId, data: { message } };
        const signature = createHmac('sha256', config.webhookSecret).update(JSON.stringify(hook)).digest('hex');
        const receivers = message.receiverType === 'group' ? (members.get(message.receiver) ?? []).filter((uid) => uid !== message.sender) : [message.receiver];
        const [hookStatus, pushStatus] = await Promise.all([
          post(config.webhookUrl, hook, { 'x-signature': signature }),
          post(config.pushUrl, { data: { to: receivers, notificationDetails: { tag: String(message.id), title: message.sender, body: message.data?.text } } }),
        ]);
        const at = Date.now();
        records.push({ _id: `${message._id}:hook`, kind: 'webhook', messageId: message.id, status: hookStatus, at });
        records.push({ _id: `${message._id}:push`, kind: 'push', messageId: message.id, recipients: receivers.length, status: pushStatus, at });
      }),
    );
    await log.insertMany(records, { ordered: false }).catch((error) => {
      // 11000 is a redelivered batch; anything else is a failure.
      if (error?.code !== 11000 && !error?.writeErrors?.every?.((e) => e.code === 11000)) throw error;
    });
  });
}
