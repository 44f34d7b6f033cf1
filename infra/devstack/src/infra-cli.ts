// Starts Kafka, FerretDB and Redis for local work (reusing what already runs), prints their
// addresses, and stops what it started on Ctrl-C.
import { registerShutdown, stopAllStarted } from './processes.js';
import { startInfrastructure } from './infrastructure.js';

// Registered before starting, so a Ctrl-C during start-up also stops what was already spawned
// (containers that were starting are removed by testcontainers' reaper when this process ends).
const running: { infra?: Awaited<ReturnType<typeof startInfrastructure>> } = {};
registerShutdown(async () => {
  await running.infra?.stop();
  await stopAllStarted();
});

const t0 = performance.now();
const infra = await startInfrastructure();
running.infra = infra;
const seconds = ((performance.now() - t0) / 1000).toFixed(1);

console.log(`KAFKA_BROKERS=${infra.kafkaBrokers} MONGO_URL=${infra.mongoUrl} REDIS_URL=${infra.redisUrl}`);
const summary = [
  infra.started.length > 0 ? `started ${infra.started.join(', ')}` : '',
  infra.reused.length > 0 ? `reused ${infra.reused.join(', ')}` : '',
].filter(Boolean).join('; ');
console.error(`[devstack] ready in ${seconds} s (${summary}).${infra.started.length > 0 ? ' Ctrl-C stops it.' : ''}`);

if (infra.started.length > 0) {
  // The children are unref'd; this keeps us alive until a signal runs the shutdown hook.
  setInterval(() => undefined, 1 << 30);
}
