// Fills the store with users and one-on-one messages the way the running services would have left it,
// in minutes instead of the hours FerretDB would take through the API:
//  - one user and one message are first created through the gateway, and their events are read back
//    from the services' own stores: every seeded event is a copy of what the service wrote, with only
//    the uids, ids, versions and times changed (so new fields of the services' events come along);
//  - each seeded event becomes its own commit, the document made by the services' own store adapter
//    (@chat/mongo's MongoCommitStore, appending into memory) with the snapshot the service's own
//    decider folds (users' `userDecider`, messages' `conversationLogDecider`), written with
//    insertMany, 500 commits a command, without publish-journal entries (the seed publishes itself);
//  - and produced to the owning service's topic with its own publisher (@chat/kafka), keyed by stream.
// Every read model (the users directory, the messages and conversations services' copies of users,
// messages, conversations and unread counts) is then built by the services' own consumers, as in
// production. The seed lives in an app of its own, so its message ids never meet the ids the service
// allocates for the app that is measured; the collections, indexes and logs are the same ones.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { parseKnownEvent, topics, userConversationId } from '../packages/contracts/dist/index.js';
import { KafkaEventPublisher } from '../packages/kafka/dist/index.js';
import { MongoCommitStore } from '../packages/mongo/dist/index.js';
import { conversationLogDecider, conversationLogStream } from '@chat/messages';
import { userDecider, userStream } from '@chat/users';

const TEMPLATE = { a: 'seed-template-a', b: 'seed-template-b', text: 'seed-template-text' };
/** Seeded message ids sit far above anything the service allocates. */
const SEED_ID_BASE = 10n ** 12n;
const MESSAGES_PER_CONVERSATION = 5;
const CHUNK = 1000;

/** A deep copy of `value` with every string passed through `rewrite`. */
function rewriteStrings(value, rewrite) {
  if (typeof value === 'string') return rewrite(value);
  if (Array.isArray(value)) return value.map((v) => rewriteStrings(v, rewrite));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteStrings(v, rewrite)]));
  return value;
}

/** The one event of `type` the service appended to `streamId`, waiting for it while the command lands. */
async function templateEvent(store, streamId, type) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const event = (await store.readStream(streamId)).find((e) => e.type === type);
    if (event) return event;
    await sleep(100);
  }
  throw new Error(`seed: no ${type} in ${streamId}`);
}

/**
 * The commit store's own adapter, writing into memory: a Db stand-in whose collections keep what the
 * adapter inserts, so the documents are exactly the adapter's (no copy of its document shape here)
 * and can then be written to the real database in large insertMany batches, which FerretDB takes many
 * times faster than one insert per commit.
 */
function capturingStore(realDb) {
  const captured = [];
  const collection = (name) => ({
    insertOne: async (doc) => {
      if (!name.endsWith('_journal')) captured.push({ name, doc });
      return { acknowledged: true, insertedId: doc._id };
    },
    insertMany: async (docs) => {
      // The publish journal is the outbox's: the seed publishes its events itself.
      if (!name.endsWith('_journal')) for (const doc of docs) captured.push({ name, doc });
      return { acknowledged: true, insertedCount: docs.length };
    },
  });
  const store = new MongoCommitStore(
    new Proxy(realDb, {
      get: (target, property) => (property === 'collection' ? collection : Reflect.get(target, property)),
    }),
  );
  return {
    store,
    /** Writes what was captured since the last flush, 500 documents a command. */
    async flush() {
      const byCollection = new Map();
      for (const { name, doc } of captured.splice(0)) (byCollection.get(name) ?? byCollection.set(name, []).get(name)).push(doc);
      for (const [name, docs] of byCollection) {
        for (let i = 0; i < docs.length; i += 500) await realDb.collection(name).insertMany(docs.slice(i, i + 500), { ordered: false });
      }
    },
  };
}

/**
 * Appends one commit per event (snapshot folded by `decider` from `states`) and then publishes the
 * events, as the service does after an append.
 */
async function appendAndPublish(capture, publisher, decider, states, events) {
  for (const event of events) {
    const state = decider.evolve(states.get(event.streamId) ?? decider.initialState(), { type: event.type, data: event.data });
    states.set(event.streamId, state);
    const [outcome] = await capture.store.appendBatch({
      position: 0,
      commits: [
        {
          commitId: randomUUID(),
          appId: event.appId,
          streamId: event.streamId,
          startVersion: event.version,
          endVersion: event.version,
          position: 0,
          events: [event],
          snapshot: { version: decider.snapshotVersion, state },
          committedAt: new Date(),
        },
      ],
    });
    if (outcome !== 'appended') throw new Error(`seed: ${event.streamId} v${event.version} was not appended (${String(outcome)})`);
  }
  await capture.flush();
  for (let i = 0; i < events.length; i += 500) await publisher.publish(events.slice(i, i + 500));
}

/**
 * @param {object} options
 * @param {import('./stack.mjs').BenchStack} options.stack
 * @param {import('kafkajs').Kafka} options.kafka
 * @param {number} options.users
 * @param {number} options.messages
 * @param {(line: string) => void} [options.log]
 * @returns {Promise<{ appId: string, users: number, messages: number, seconds: number }>}
 */
export async function seedStore({ stack, kafka, users: userCount, messages: messageCount, log = () => {} }) {
  const started = performance.now();
  // The first request after a heavy figure may meet a system still working off its queue.
  let seedApp;
  for (let attempt = 1; seedApp === undefined; attempt++) {
    seedApp = await stack.createApp('bench seed').catch((error) => {
      if (attempt >= 5) throw error;
      return undefined;
    });
  }
  const { appId, chat } = seedApp;
  for (const uid of [TEMPLATE.a, TEMPLATE.b]) await stack.api('POST', '/v3/users', { headers: chat, body: { uid, name: uid } });
  // The messages service learns users from the users service's events: retry until it knows both.
  for (let attempt = 0; ; attempt++) {
    try {
      await stack.api('POST', '/v3/messages', {
        headers: { ...chat, onbehalfof: TEMPLATE.a },
        body: { receiver: TEMPLATE.b, receiverType: 'user', type: 'text', data: { text: TEMPLATE.text } },
      });
      break;
    } catch (error) {
      if (attempt >= 600) throw error;
      await sleep(100);
    }
  }

  const mongo = new MongoClient(stack.infra.mongoUrl);
  const usersDb = mongo.db(`chat_users_${stack.databaseSuffix}`);
  const messagesDb = mongo.db(`chat_messages_${stack.databaseSuffix}`);
  const usersStore = new MongoCommitStore(usersDb);
  const messagesStore = new MongoCommitStore(messagesDb);
  const templateConversation = userConversationId(TEMPLATE.a, TEMPLATE.b);
  const userTemplate = await templateEvent(usersStore, userStream(appId, TEMPLATE.a), 'UserCreated');
  const messageTemplate = await templateEvent(messagesStore, conversationLogStream(appId, templateConversation), 'MessageSent');

  const usersPublisher = new KafkaEventPublisher(kafka, topics.users);
  const messagesPublisher = new KafkaEventPublisher(kafka, topics.messages);
  await usersPublisher.connect();
  await messagesPublisher.connect();
  try {
    const uidOf = (i) => `seed-u${String(i).padStart(6, '0')}`;
    const now = new Date();
    const envelope = (template, rewrite, fields) => ({
      ...rewriteStrings(template, rewrite),
      id: randomUUID(),
      occurredAt: now.toISOString(),
      correlationId: `seed-${randomUUID()}`,
      causationId: null,
      ...fields,
    });

    const userStates = new Map();
    const usersCapture = capturingStore(usersDb);
    for (let from = 0; from < userCount; from += CHUNK) {
      const events = [];
      for (let i = from; i < Math.min(userCount, from + CHUNK); i++) {
        const uid = uidOf(i);
        events.push(envelope(userTemplate, (s) => s.replaceAll(TEMPLATE.a, uid), { version: 1 }));
      }
      if (from === 0 && !parseKnownEvent(events[0])) throw new Error('seed: a copied UserCreated no longer parses');
      await appendAndPublish(usersCapture, usersPublisher, userDecider, userStates, events);
      log(`seed: ${Math.min(userCount, from + CHUNK)} users`);
    }

    // Conversation k is between users a and b, a different pair for every k; its messages alternate
    // between the two. Message j of every conversation comes before message j+1 of any, so streams
    // interleave as live traffic would leave them.
    const conversations = Math.ceil(messageCount / MESSAGES_PER_CONVERSATION);
    // Offsets 1, 2, … below half the user count never name one pair twice (a→a+d and a+d→a alike).
    if (conversations > userCount * Math.floor((userCount - 1) / 2)) throw new Error('seed: too few users for that many conversations');
    const pairOf = (k) => {
      const a = k % userCount;
      const b = (a + 1 + Math.floor(k / userCount)) % userCount;
      return [uidOf(a), uidOf(b)];
    };
    const conversationStates = new Map();
    const messagesCapture = capturingStore(messagesDb);
    let seeded = 0;
    let events = [];
    const flush = async () => {
      await appendAndPublish(messagesCapture, messagesPublisher, conversationLogDecider, conversationStates, events);
      seeded += events.length;
      events = [];
      if (seeded % (CHUNK * 10) === 0 || seeded === messageCount) log(`seed: ${seeded} messages`);
    };
    for (let j = 0; j < MESSAGES_PER_CONVERSATION; j++) {
      for (let k = 0; k < conversations && seeded + events.length < messageCount; k++) {
        const [a, b] = pairOf(k);
        const [sender, receiver] = j % 2 === 0 ? [a, b] : [b, a];
        const conversationId = userConversationId(sender, receiver);
        const rewrite = (s) =>
          s.replaceAll(templateConversation, conversationId).replaceAll(TEMPLATE.a, sender).replaceAll(TEMPLATE.b, receiver).replaceAll(TEMPLATE.text, `seed ${k}.${j}`);
        const event = envelope(messageTemplate, rewrite, { version: j + 1 });
        event.data = { ...event.data, id: String(SEED_ID_BASE + BigInt(seeded + events.length)), sentAt: Math.floor(now.getTime() / 1000) };
        if (seeded + events.length === 0 && !parseKnownEvent(event)) throw new Error('seed: a copied MessageSent no longer parses');
        events.push(event);
        if (events.length === CHUNK) await flush();
      }
    }
    if (events.length > 0) await flush();
    return { appId, users: userCount, messages: seeded, seconds: (performance.now() - started) / 1000 };
  } finally {
    await usersPublisher.disconnect();
    await messagesPublisher.disconnect();
    await mongo.close();
  }
}
