// What Kafka knows about the services' progress: each consumer group's lag (log end minus committed
// offset over the partitions assigned to it), read with an admin client, so a benchmark can wait until
// every read model has caught up, or time a projection rebuild, without asking the services anything.
// The Kafka client is the services' own (@chat/kafka's createKafka); kafkajs is resolved from there.
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKafka, loadKafkaSecurity } from '../packages/kafka/dist/index.js';

const { AssignerProtocol } = createRequire(new URL('../packages/kafka/dist/index.js', import.meta.url))('kafkajs');

/**
 * How long the arrivals consumer's empty fetch is held. The broker answers a held fetch at the first record
 * (ADR 0058), so no arrival is noted later for a longer hold; a 50 ms hold asked the broker 20 times a
 * second while nothing was sent — more than the whole idle stack — and cost.mjs billed it to Kafka's
 * idle rate (ADR 0134).
 */
const ARRIVALS_IDLE_WAIT_MS = 1_000;

/**
 * @typedef {object} GroupProgress
 * @property {number} committed  events the group has committed, summed over its partitions
 * @property {number} end  the log end of the same partitions
 * @property {number} lag  end − committed
 */

/** @param {string} brokers  comma-separated, as the stack gives them */
/** A send's arrival key on chat.messages.events (message ids are numbered per app): `appId/id`, or undefined for other events. */
export const sentMessageKey = (event) => (event.type === 'MessageSent' ? `${event.appId}/${event.data?.id}` : undefined);

export async function connectKafkaProbe(brokers) {
  let closing = false;
  // kafkajs logs through a pino-shaped logger: only errors, and none once the stack is stopping
  // (the broker going away is expected then).
  const errorsOnly = {
    error: (detail, message) => {
      if (!closing) console.error(`bench kafka: ${message}`, detail);
    },
    warn: () => {},
    info: () => {},
  };
  const kafka = createKafka('bench', brokers.split(','), errorsOnly, loadKafkaSecurity(process.env));
  const admin = kafka.admin();
  await admin.connect();

  /** Consumer groups whose id satisfies `matches`. */
  async function groupsMatching(matches) {
    const { groups } = await admin.listGroups();
    return groups.map((g) => g.groupId).filter(matches);
  }

  /**
   * Progress of one group over the partitions its members are assigned; null while it has no
   * assignment (joining or rebalancing), when its position is not known.
   * @returns {Promise<GroupProgress | null>}
   */
  async function progressOf(groupId) {
    const { groups } = await admin.describeGroups([groupId]);
    const assigned = new Map();
    for (const member of groups[0]?.members ?? []) {
      const decoded = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
      for (const [topic, partitions] of Object.entries(decoded?.assignment ?? {})) {
        assigned.set(topic, [...(assigned.get(topic) ?? []), ...partitions]);
      }
    }
    if (assigned.size === 0) return null;
    const topics = [...assigned.keys()];
    const offsets = await admin.fetchOffsets({ groupId, topics });
    let committed = 0;
    let end = 0;
    for (const { topic, partitions } of offsets) {
      const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p]));
      for (const partition of assigned.get(topic)) {
        const log = ends.get(partition);
        const high = Number(log?.high ?? 0);
        const own = Number(partitions.find((p) => p.partition === partition)?.offset ?? -1);
        // Nothing committed yet: the group starts from the beginning of the log.
        committed += own < 0 ? Number(log?.low ?? 0) : own;
        end += high;
      }
    }
    return { committed, end, lag: end - committed };
  }

  /**
   * Total lag of the groups `matches` selects; null when any of them has no assignment yet.
   * @returns {Promise<{ lag: number, groups: number } | null>}
   */
  async function lagOf(matches) {
    const groupIds = await groupsMatching(matches);
    let lag = 0;
    for (const groupId of groupIds) {
      const progress = await progressOf(groupId);
      if (progress === null) return null;
      lag += progress.lag;
    }
    return { lag, groups: groupIds.length };
  }

  /**
   * Waits until every group `matches` selects has consumed its whole log, at most `timeoutMs`.
   * @returns {Promise<{ quiet: boolean, lag: number | null, waitedMs: number }>}
   */
  async function waitForQuiet(matches, timeoutMs) {
    const started = performance.now();
    let last = null;
    for (;;) {
      last = await lagOf(matches).catch(() => null);
      if (last !== null && last.groups > 0 && last.lag === 0) return { quiet: true, lag: 0, waitedMs: performance.now() - started };
      if (performance.now() - started >= timeoutMs) return { quiet: false, lag: last?.lag ?? null, waitedMs: performance.now() - started };
      await sleep(250);
    }
  }

  /** Sum of the log ends of `topics`: how many events they hold (the logs start empty). */
  async function eventsIn(topics) {
    let total = 0;
    for (const topic of topics) {
      for (const p of await admin.fetchTopicOffsets(topic)) total += Number(p.high) - Number(p.low);
    }
    return total;
  }

  /**
   * A fresh consumer (a group of its own, from the log end) on `topic` noting when each event whose
   * `appId` header is one of `appIds()` first arrived (performance.now()), keyed by `keyOf(event)`;
   * resolves once it has its partitions, so nothing sent afterwards is missed. Its group's id starts
   * with `bench-arrivals-`, so it is never one of the stack's groups.
   *
   * @param {string} topic
   * @param {(event: any) => string | undefined} keyOf
   * @param {() => ReadonlySet<string>} appIds
   * @param {number} [timeoutMs]  how long joining may take
   */
  async function watchArrivals(topic, keyOf, appIds, timeoutMs = 60_000) {
    const arrivals = new Map();
    const consumer = kafka.consumer({ groupId: `bench-arrivals-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`, maxWaitTimeInMs: ARRIVALS_IDLE_WAIT_MS });
    const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: false });
    await consumer.run({
      eachBatchAutoResolve: true,
      eachBatch: async ({ batch }) => {
        const at = performance.now();
        const wanted = appIds();
        for (const message of batch.messages) {
          if (!wanted.has(message.headers?.appId?.toString() ?? '')) continue;
          let key;
          try {
            key = keyOf(JSON.parse(message.value.toString('utf8')));
          } catch {
            key = undefined;
          }
          if (key !== undefined && !arrivals.has(String(key))) arrivals.set(String(key), at);
        }
      },
    });
    const gaveUp = new AbortController();
    const outcome = await Promise.race([joined.then(() => 'joined'), sleep(timeoutMs, 'timeout', { signal: gaveUp.signal }).catch(() => 'aborted')]);
    gaveUp.abort();
    if (outcome !== 'joined') {
      await consumer.disconnect().catch(() => undefined);
      throw new Error(`the consumer on ${topic} did not join its group within ${timeoutMs / 1000} s`);
    }
    return { arrivals, close: () => consumer.disconnect() };
  }

  return {
    kafka,
    watchArrivals,
    groupsMatching,
    progressOf,
    lagOf,
    waitForQuiet,
    eventsIn,
    close: () => {
      closing = true;
      return admin.disconnect();
    },
  };
}

/**
 * A bench stack's client side for one app's sends: the gateway client (`createClient`, bench/httpClient.mjs),
 * a probe, and the arrivals of the app's sends on chat.messages.events, all closed when the stack stops.
 */
export async function watchAppSends(stack, createClient) {
  const client = createClient(stack.services.gatewayUrl);
  stack.onStop(() => client.close());
  const probe = await connectKafkaProbe(stack.infra.kafkaBrokers);
  stack.onStop(() => probe.close());
  const events = await probe.watchArrivals('chat.messages.events', sentMessageKey, () => new Set([stack.app.appId]));
  stack.onStop(() => events.close());
  return { client, probe, events };
}
