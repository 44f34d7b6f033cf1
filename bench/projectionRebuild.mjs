// A projection rebuilt from Kafka offset 0: a second instance of a service (its compiled main.js, as
// the stack runs it) started on a database of its own, so its consumer group is new
// (@chat/kafka's consumerGroupFor names it after the database) and reads every topic it consumes from
// the beginning. Progress is read from Kafka (the group's committed offsets), so nothing of the
// service is asked; the rate is taken from the group's first committed offset to the target, which
// leaves start-up out. Swappable: the benchmark needs only measureProjectionRebuild's result.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnManaged } from '../infra/devstack/dist/processes.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * @typedef {object} RebuildResult
 * @property {number} events  events the new group consumed within the time allowed
 * @property {number} target  events it was to consume (the smaller of `events` and the log)
 * @property {number} seconds  from its first committed offset to the target (or the deadline)
 * @property {number} eventsPerSecond
 * @property {number} startupSeconds  from spawn to its first committed offset
 * @property {boolean} complete  the target was reached in time
 * @property {boolean} started  the group committed an offset within the start-up allowance
 */

/**
 * @param {object} options
 * @param {import('./stack.mjs').BenchStack} options.stack
 * @param {Awaited<ReturnType<typeof import('./kafkaProbe.mjs').connectKafkaProbe>>} options.probe
 * @param {string} options.service  a service under services/, e.g. `messages`
 * @param {readonly string[]} options.topics  the topics that service consumes
 * @param {number} options.events  how many events to rebuild from (at most what the topics hold)
 * @param {number} options.timeoutMs  how long to measure once the group has committed its first offset
 * @param {number} [options.startupTimeoutMs]  how long the instance may take to commit its first offset
 * @returns {Promise<RebuildResult>}
 */
export async function measureProjectionRebuild({ stack, probe, service, topics, events, timeoutMs, startupTimeoutMs = 60_000 }) {
  const database = `chat_${service}_${stack.databaseSuffix}_rebuild`;
  const target = Math.min(events, await probe.eventsIn(topics));
  const logFile = join(repoRoot, '.infra', 'logs', `${service}-rebuild.log`);
  const spawnedAt = performance.now();
  const instance = await spawnManaged({
    name: `${service}-rebuild`,
    file: process.execPath,
    args: ['--enable-source-maps', join(repoRoot, 'services', service, 'dist', 'main.js')],
    cwd: repoRoot,
    logFile,
    pidFile: join(repoRoot, '.infra', 'run', `${service}-rebuild.pid`),
    stopGraceMs: 10_000,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      PORT: '0',
      MONGO_URL: stack.infra.mongoUrl,
      MONGO_DB: database,
      KAFKA_BROKERS: stack.infra.kafkaBrokers,
      REDIS_URL: stack.infra.redisUrl,
    },
  });
  stack.onStop(() => instance.stop());
  try {
    let deadline = spawnedAt + startupTimeoutMs;
    let firstAt = null;
    let firstCommitted = 0;
    let consumed = 0;
    while (performance.now() < deadline && consumed < target) {
      if (instance.hasExited()) throw new Error(`the ${service} rebuild instance exited; see ${logFile}`);
      const [groupId] = await probe.groupsMatching((id) => id.endsWith(`.${database}`));
      const progress = groupId ? await probe.progressOf(groupId).catch(() => null) : null;
      if (progress && progress.committed > 0) {
        consumed = progress.committed;
        if (firstAt === null) {
          firstAt = performance.now();
          firstCommitted = consumed;
          deadline = firstAt + timeoutMs;
        }
      }
      if (consumed < target) await sleep(100);
    }
    const endedAt = performance.now();
    const seconds = firstAt === null ? 0 : (endedAt - firstAt) / 1000;
    return {
      events: Math.min(consumed, target),
      target,
      seconds,
      eventsPerSecond: seconds > 0 ? (Math.min(consumed, target) - firstCommitted) / seconds : NaN,
      startupSeconds: ((firstAt ?? endedAt) - spawnedAt) / 1000,
      complete: consumed >= target,
      started: firstAt !== null,
    };
  } finally {
    await instance.stop();
  }
}
