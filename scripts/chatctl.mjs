#!/usr/bin/env node
// chatctl — the operator's command line. `chatctl --help` (`npx chatctl`, `npm run chatctl -- --help`) lists the
// commands. Build first (npx tsc -b): it runs the services' own read-model code from their dist/.
// Reads KAFKA_BROKERS, MONGO_URL, GATEWAY_URL, MANAGEMENT_KEY, MANAGEMENT_SECRET and the services'
// *_URL variables from the environment, like the processes it operates.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { topics } from '../packages/contracts/dist/index.js';
import { createLogger } from '../packages/http/dist/index.js';
import {
  EventConsumer,
  LagReader,
  REBUILD_EVENTS_PER_CALL,
  consumerGroupFor,
  createKafka,
  loadKafkaSecurity,
  deadLettersOf,
  eventsOf,
  headerText,
  lagOfAllGroups,
  redriveDeadLetters,
} from '../packages/kafka/dist/index.js';
import { REBUILD_DOCUMENTS_PER_INSERT, allOf, connectMongo } from '../packages/mongo/dist/index.js';
import { ConversationReadModels, readModelDocuments as conversationDocuments } from '../services/conversations/dist/adapters/readModels.js';
import { GroupReadModels } from '../services/conversations/dist/adapters/groups/groupsReadModels.js';
import { CONSUMER_PURPOSE as CONVERSATIONS_PURPOSE } from '../services/conversations/dist/service.js';
import { MessagesReadModels } from '../services/messages/dist/adapters/readModels.js';
import { UserReadModels, readModelDocuments as userDocuments } from '../services/users/dist/adapters/readModels.js';
import { compareDatabases } from './readModelComparison.mjs';

const env = process.env;
const brokers = () => (env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
// TLS and SASL as the services read them (KAFKA_SSL…, KAFKA_SASL…), checked before any command runs.
const kafkaSecurity = loadKafkaSecurity(env);
const logger = createLogger('chatctl', env.LOG_LEVEL ?? 'warn');

/**
 * The read models a rebuild may recreate: the topics each service's projection consumes and its
 * read-model code. Only projections without side effects are listed (the messages service's group
 * action messages and the webhooks deliveries act on events, so they are rebuilt by their service).
 */
const PROJECTIONS = {
  users: {
    topics: [topics.users],
    database: 'chat_users',
    purpose: 'users.read-models',
    make: (db) => new UserReadModels(db),
    // The user directory is compared as each app's listing reads (every page by offset and by cursor,
    // in order, with its total): how it is cut into chunks depends on the order users arrived in (ADR 0145).
    documents: userDocuments,
  },
  conversations: {
    topics: [topics.users, topics.messages, topics.conversations],
    database: 'chat_conversations',
    purpose: CONVERSATIONS_PURPOSE,
    make: (db) => {
      const conversations = new ConversationReadModels(db);
      const groups = new GroupReadModels(db);
      return { applier: allOf(conversations, groups), ensureIndexes: async () => (await conversations.ensureIndexes(), await groups.ensureIndexes()) };
    },
    // Timelines and inboxes are heads plus revisions cut by the writer's batches: compared as read (ADR 0056).
    documents: conversationDocuments,
  },
  messages: {
    topics: [topics.users, topics.conversations, topics.messages],
    database: 'chat_messages',
    purpose: 'messages.projections',
    // Nothing waits on the rebuilt database's write lock: a partition's fetched batch a handler call and
    // one insert command of it cost the consumer less (ADR 0114, 0147).
    make: (db) => new MessagesReadModels(db, { documentsPerInsert: REBUILD_DOCUMENTS_PER_INSERT }),
    eventsPerCall: REBUILD_EVENTS_PER_CALL,
  },
};

function fail(message) {
  console.error(`chatctl: ${message}`);
  process.exit(2);
}

/** Rows as tab-separated lines under a header, or with `--json` as one JSON array of objects. */
function table(options, columns, rows) {
  if (options.json) {
    console.log(JSON.stringify(rows));
    return;
  }
  console.log(columns.join('\t'));
  for (const row of rows) console.log(columns.map((column) => row[column]).join('\t'));
}

/** A progress bar on stderr (a terminal only), so piped output stays clean. */
function progress(label, total) {
  const started = Date.now();
  return (done) => {
    if (!process.stderr.isTTY) return;
    const share = total > 0 ? Math.min(1, done / total) : 1;
    const width = 30;
    const filled = Math.round(share * width);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (share >= 1) process.stderr.write('\n');
  };
}

async function withKafka(work) {
  const kafka = createKafka('chatctl', brokers(), logger, kafkaSecurity);
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await work(kafka, admin);
  } finally {
    await admin.disconnect();
  }
}

/** `lag [--group G]`: committed offsets against each partition's end, for every group (or one). */
async function lag(options) {
  await withKafka(async (kafka, admin) => {
    const rows = (await lagOfAllGroups(kafka, admin, options.group)).map((r) => ({
      group: r.groupId,
      topic: r.topic,
      partition: r.partition,
      committed: r.committed,
      end: r.end,
      lag: r.lag,
    }));
    table(options, ['group', 'topic', 'partition', 'committed', 'end', 'lag'], rows);
  });
}

/** `tail <topic> [--app A] [--type T] [--follow]`: the events of a topic, as JSON lines, filtered. */
async function tail(topic, options) {
  if (!topic) fail('tail needs a topic, e.g. chat.users.events');
  const filter = { ...(options.app ? { appId: options.app } : {}), ...(options.type ? { type: options.type } : {}) };
  await withKafka(async (kafka, admin) => {
    if (!options.follow) {
      for (const line of await eventsOf(kafka, admin, topic, filter)) console.log(JSON.stringify(line));
      return;
    }
    const consumer = kafka.consumer({ groupId: `chatctl.tail.${randomBytes(6).toString('hex')}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: false });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (filter.appId && headerText(message.headers, 'appId') !== filter.appId) return;
        if (filter.type && headerText(message.headers, 'type') !== filter.type) return;
        console.log(JSON.stringify({ partition, offset: message.offset, event: JSON.parse(message.value.toString()) }));
      },
    });
    await new Promise((resolve) => process.once('SIGINT', resolve));
    await consumer.disconnect();
  });
}

/** `dlq list <group>` / `dlq redrive <group>`: a consumer group's dead letters, and sending them back once. */
async function dlq(action, group, options) {
  if (!group || !['list', 'redrive'].includes(action)) fail('usage: dlq list|redrive <consumer group>');
  await withKafka(async (kafka, admin) => {
    if (action === 'list') {
      const rows = (await deadLettersOf(kafka, admin, group)).map((letter) => ({
        partition: letter.partition,
        offset: letter.offset,
        redriven: options.json ? letter.redriven : letter.redriven ? 'yes' : 'no',
        from: options.json ? letter.from : `${letter.from.topic}[${letter.from.partition}]@${letter.from.offset}`,
        reason: letter.reason,
      }));
      table(options, ['partition', 'offset', 'redriven', 'from', 'reason'], rows);
      return;
    }
    let bar;
    const count = await redriveDeadLetters(kafka, admin, group, (done, total) => (bar ??= progress('redrive', total))(done));
    if (options.json) console.log(JSON.stringify({ group, redriven: count }));
    else console.log(`redriven: ${count} dead letter(s) of ${group} sent back to their topics`);
  });
}

/** `backlog`: each service's relay backlog, from its /metrics. */
async function backlog(options) {
  const services = ['users', 'conversations', 'messages', 'management', 'webhooks'].filter((name) => env[`${name.toUpperCase()}_URL`]);
  if (services.length === 0) fail('set USERS_URL, CONVERSATIONS_URL, … to the services to ask');
  const rows = [];
  for (const name of services) {
    const text = await fetch(`${env[`${name.toUpperCase()}_URL`]}/metrics`).then((r) => r.text());
    for (const line of text.split('\n').filter((l) => l.startsWith('relay_backlog_events{'))) {
      const topic = /topic="([^"]+)"/.exec(line)?.[1];
      rows.push({ service: name, topic, backlog: Number(line.slice(line.lastIndexOf(' ') + 1)) });
    }
  }
  table(options, ['service', 'topic', 'backlog'], rows);
}

function managementCall(method, path, body) {
  const gateway = env.GATEWAY_URL ?? 'http://127.0.0.1:3000';
  if (!env.MANAGEMENT_KEY || !env.MANAGEMENT_SECRET) fail('set MANAGEMENT_KEY and MANAGEMENT_SECRET');
  return fetch(`${gateway}${path}`, {
    method,
    headers: { key: env.MANAGEMENT_KEY, secret: env.MANAGEMENT_SECRET, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (response) => {
    const answer = await response.json();
    if (!response.ok) fail(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer.data;
  });
}

/** `create-app <name> [--region us]`, through the gateway's management API. */
async function createApp(name, options) {
  if (!name) fail('create-app needs a name');
  console.log(JSON.stringify(await managementCall('POST', '/apps', { name, region: options.region ?? 'us' })));
}
/** A key is created by the app itself (CometChat's `/v3/apikeys`), with one of its full-access keys. */
async function createKey(appId, options) {
  if (!appId || !options.apikey) fail('usage: create-key <appId> --apikey <a fullAccess key of that app> [--scope S] [--name N]');
  const response = await fetch(`${env.GATEWAY_URL ?? 'http://127.0.0.1:3000'}/v3/apikeys`, {
    method: 'POST',
    headers: { appId, apikey: options.apikey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: options.name ?? 'chatctl', scope: options.scope ?? 'fullAccess' }),
  });
  const answer = await response.json();
  if (!response.ok) fail(`POST /v3/apikeys: ${response.status} ${JSON.stringify(answer)}`);
  console.log(JSON.stringify(answer.data));
}

/**
 * `rebuild <service> [--live DB] [--into DB] [--keep]`: replays the service's topics from offset 0
 * into a fresh database through its own read-model code, then compares every read-model document
 * and every index with the live database. Exit 0 when rebuilt == live, 1 otherwise.
 */
async function rebuild(service, options) {
  const projection = PROJECTIONS[service];
  if (!projection) fail(`rebuild knows ${Object.keys(PROJECTIONS).join(', ')}`);
  const liveName = options.live ?? projection.database;
  const intoName = options.into ?? `${liveName}_rebuild_${Date.now().toString(36)}`;
  const { client: mongo } = await connectMongo(env.MONGO_URL ?? 'mongodb://127.0.0.1:27017', liveName, 'chatctl');
  const kafka = createKafka('chatctl', brokers(), logger, kafkaSecurity);
  const target = mongo.db(intoName);
  const made = projection.make(target);
  const applier = made.applier ?? made;
  await made.ensureIndexes();
  const groupId = consumerGroupFor(`chatctl.rebuild.${projection.purpose}`, intoName);
  // The others keep the live runs of 500: a conversations timeline carries the chunks one handler call seals
  // only up to that many events (`SEALS_KEPT`, ADR 0048).
  const calls = projection.eventsPerCall !== undefined ? { maxEventsPerCall: projection.eventsPerCall } : {};
  const consumer = new EventConsumer(kafka, { groupId, topics: projection.topics, logger, ...calls, handler: (events) => applier.apply(events) });
  const reader = new LagReader(kafka);
  try {
    const ends = await reader.measure(groupId, projection.topics);
    const total = ends.reduce((sum, p) => sum + p.lag, 0);
    const bar = progress(`rebuild ${service}`, total);
    await consumer.start();
    for (;;) {
      const left = (await reader.measure(groupId, projection.topics)).reduce((sum, p) => sum + Math.max(0, p.lag), 0);
      bar(Math.max(0, total - left));
      // Caught up with the log as it stood at the start (events that arrived since are replayed too).
      if (left === 0) break;
      await sleep(200);
    }
  } finally {
    await consumer.stop();
    await reader.close();
  }
  const report = await compareDatabases(mongo.db(liveName), target, { documents: projection.documents, showDifferences: Boolean(env.CHATCTL_SHOW_DIFFERENCES) });
  const equal = report.every(({ differing, indexesDiffering }) => differing.length === 0 && indexesDiffering.length === 0);
  const documents = report.reduce((sum, r) => sum + r.rebuilt, 0);
  if (options.json) {
    console.log(JSON.stringify({ service, live: liveName, rebuilt: intoName, equal, kept: !equal || Boolean(options.keep), documents, collections: report }));
  } else {
    for (const { collection, live, rebuilt, differing, indexesDiffering } of report) {
      console.log(`${collection}: live ${live}, rebuilt ${rebuilt}, differing ${differing.length}${differing.length ? ` (e.g. ${differing.slice(0, 3).join(', ')})` : ''}`);
      if (indexesDiffering.length) console.log(`${collection}: indexes in one database only: ${indexesDiffering.join('; ')}`);
    }
    console.log(equal ? `rebuilt == live: ${documents} documents in ${report.length} collections of ${liveName}` : `rebuilt != live (${intoName} kept for inspection)`);
  }
  if (equal && !options.keep) await target.dropDatabase();
  await mongo.close();
  return equal;
}

const USAGE = `usage: chatctl <command> [options]   (--help, -h: this text; --json: machine-readable output)
  lag [--group G]                          consumer lag per group, topic and partition
  tail <topic> [--app A] [--type T] [--follow]
                                           events of a topic as JSON lines (to its current end, or following)
  dlq list <group> | dlq redrive <group>   a consumer group's dead letters; send the not yet redriven ones back
  backlog                                  relay backlog of each service (USERS_URL, … → /metrics)
  rebuild <users|conversations|messages> [--live DB] [--into DB] [--keep]
                                           replay the log into a fresh database and compare with the live one
  create-app <name> [--region R]           through the gateway (GATEWAY_URL, MANAGEMENT_KEY, MANAGEMENT_SECRET)
  create-key <appId> --apikey K [--scope S] [--name N]
  help                                     this text`;

/** The arguments, or the usage and exit 2 (a one-line reason first) when they cannot be read. */
function readArguments(args) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        json: { type: 'boolean' },
        group: { type: 'string' },
        app: { type: 'string' },
        type: { type: 'string' },
        follow: { type: 'boolean' },
        live: { type: 'string' },
        into: { type: 'string' },
        keep: { type: 'boolean' },
        region: { type: 'string' },
        scope: { type: 'string' },
        name: { type: 'string' },
        apikey: { type: 'string' },
      },
    });
  } catch (error) {
    // parseArgs refuses unknown options and missing values with a code of its own: a usage error, not a crash.
    if (typeof error?.code !== 'string' || !error.code.startsWith('ERR_PARSE_ARGS_')) throw error;
    console.error(`chatctl: ${error.message.split('\n')[0].split(/(?<=\.) /)[0]}\n${USAGE}`);
    process.exit(2);
  }
}

const { values: options, positionals } = readArguments(process.argv.slice(2));
const [command, ...rest] = positionals;
if (options.help || command === 'help') {
  console.log(USAGE);
  process.exit(0);
}
switch (command) {
  case 'lag':
    await lag(options);
    break;
  case 'tail':
    await tail(rest[0], options);
    break;
  case 'dlq':
    await dlq(rest[0], rest[1], options);
    break;
  case 'backlog':
    await backlog(options);
    break;
  case 'rebuild':
    process.exitCode = (await rebuild(rest[0], options)) ? 0 : 1;
    break;
  case 'create-app':
    await createApp(rest[0], options);
    break;
  case 'create-key':
    await createKey(rest[0], options);
    break;
  default:
    // No command is a question (the usage, exit 0); an unknown one is a usage error.
    if (command === undefined) console.log(USAGE);
    else {
      console.error(`chatctl: unknown command ${JSON.stringify(command)}\n${USAGE}`);
      process.exitCode = 2;
    }
}
