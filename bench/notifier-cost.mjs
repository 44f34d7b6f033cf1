// node bench/notifier-cost.mjs <notifications dist dir> [<another> …] — the CPU the notifications
// service's decisions cost per message, in this process, without the store or Kafka: each build's
// `Notifier` (services/notifications/dist, or a copy of another build's) decides runs of the cost
// bench's features-on mix (a custom push provider, an FCM token per user and no FCM provider; 50
// one-on-one messages and 2 to a group of 20 per run), and each message's log document is built as
// the run's record builds it (`logBatchOf` over its skips and its first calls). Builds alternate for
// ROUNDS rounds of RUNS runs; it prints CPU µs per message per build and round, the median per
// build and each median ÷ the first's. Knobs: RUNS (400), ROUNDS (6).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const RUNS = Number(process.env.RUNS ?? 400);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const dirs = process.argv.slice(2);
if (dirs.length === 0) throw new Error('usage: node bench/notifier-cost.mjs <notifications dist dir> [<another> …]');

const members = Array.from({ length: 20 }, (_, i) => `g${i}`);
const pairs = Array.from({ length: 50 }, (_, i) => [`a${i}`, `b${i}`]);

async function buildOf(dir) {
  const load = (path) => import(pathToFileURL(resolve(dir, path)).href);
  const [{ Notifier }, { effectiveSettings }, { emptyRecipient }, { logBatchOf }, { attemptEntry, logEntryId }] = await Promise.all([
    load('app/notifier.js'),
    load('domain/settings.js'),
    load('domain/recipient.js'),
    load('domain/logPage.js'),
    load('domain/notificationRecord.js'),
  ]);
  const entry = {
    settings: effectiveSettings(null),
    providers: new Map([['push:custom:default', { channel: 'push', provider: 'custom', providerId: 'default', settings: { isEnabled: true }, secrets: {} }]]),
    defaults: {},
  };
  const recipients = new Map();
  for (const uid of [...members, ...pairs.flat()]) {
    const token = { token: `pc-${uid}`, tokenType: 'fcm', platform: 'fcm_android', providerId: 'default', sessionId: 's', registeredAt: 1 };
    recipients.set(uid, { ...emptyRecipient(), tokens: { [token.token]: token }, appId: 'app1', uid, exists: true, active: true });
  }
  const generation = {};
  let decided = 0;
  const notifier = new Notifier({
    readModels: {
      groupMembers: () => Promise.resolve(members),
      findRecipients: (_appId, uids) => Promise.resolve(new Map(uids.map((uid) => [uid, recipients.get(uid)]))),
    },
    directory: { get: () => Promise.resolve(entry) },
    recipients: { get: () => Promise.resolve(generation) },
    region: 'us',
    defaultTimezone: 'UTC',
    take: (skipped, queued) => {
      // Each message's log document as the run's record writes it: its skips and each send's first call.
      const byMessage = new Map();
      const entriesOf = (id) => byMessage.get(id) ?? byMessage.set(id, []).get(id);
      for (const s of skipped) entriesOf(s.messageId).push({ ...s, _id: logEntryId(s.notificationId, null) });
      for (const n of queued) {
        const attempt = { attempt: 1, outcome: 'delivered', statusCode: 200, responsePrefix: 'ok', startedAt: n.queuedAt, at: n.queuedAt + 3 };
        entriesOf(n.messageId).push({ ...attemptEntry(n, attempt), _id: logEntryId(n.notificationId, 1) });
      }
      for (const entries of byMessage.values()) JSON.stringify(logBatchOf('app1', entries, Date.now()));
      decided += byMessage.size;
      return Promise.resolve();
    },
  });
  return { dir, notifier, perMessage: [], decided: () => decided };
}

const require = createRequire(resolve(dirs[0], 'index.js'));
const { testEnvelope } = await import(pathToFileURL(require.resolve('@chat/eventsourcing/testing')).href);
let n = 0;
function sent(sender, receiver, receiverType) {
  n += 1;
  return testEnvelope('MessageSent', `conversation:app1:${receiver}`, n, {
    id: String(n),
    conversationId: receiverType === 'group' ? `group_${receiver}` : `${sender}_user_${receiver}`,
    sender,
    receiver,
    receiverType,
    category: 'message',
    type: 'text',
    data: { text: `message ${n} with some words in it`, entities: { sender: { entity: { uid: sender, name: sender } }, receiver: { entity: { uid: receiver, name: receiver } } } },
    sentAt: Math.floor(Date.now() / 1000),
  });
}
const runOf = () => [...pairs.map(([a, b]) => sent(a, b, 'user')), sent('g0', 'team', 'group'), sent('g1', 'team', 'group')];
const runs = Array.from({ length: 20 }, runOf);
const messagesPerRun = runs[0].length;

const builds = [];
for (const dir of dirs) builds.push(await buildOf(dir));
for (const build of builds) for (const run of runs) await build.notifier.queue(run, { mayRepeat: false }); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
    const before = build.decided();
    const from = process.cpuUsage();
    for (let i = 0; i < RUNS; i++) await build.notifier.queue(runs[i % runs.length], { mayRepeat: false });
    const used = process.cpuUsage(from);
    if (build.decided() - before !== RUNS * messagesPerRun) throw new Error(`${build.dir}: ${build.decided() - before} messages decided, not ${RUNS * messagesPerRun}`);
    build.perMessage.push((used.user + used.system) / (RUNS * messagesPerRun));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(builds[0].perMessage);
for (const build of builds) {
  const m = median(build.perMessage);
  console.log(`${build.dir}: ${build.perMessage.map((v) => v.toFixed(1)).join(', ')} µs/message; median ${m.toFixed(1)} (${(m / base).toFixed(2)}×)`);
}
