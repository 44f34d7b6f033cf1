import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { topics } from '@chat/contracts';
import { createServiceApp, sampledGauge } from '@chat/http';
import { BroadcastConsumer, EventConsumer, consumerGroupFor, ensureTopics } from '@chat/kafka';
import type { RecordHeaders } from '@chat/kafka';
import type { PlatformDeps, RunnableService } from '@chat/runtime';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { RealtimeReadModels } from './adapters/readModels.js';
import { ConnectionRegistry } from './app/connections.js';
import { Fanout } from './app/fanout.js';
import { Sessions } from './app/sessions.js';
import type { RealtimeConfig } from './config.js';
import { framedEventTypes } from './domain/frames.js';
import { membershipEventTypes } from './domain/membership.js';
import { MembershipIndex } from './domain/membershipIndex.js';
import { RetentionWindow } from './domain/retentionWindow.js';
import { RecentRevocations, revocationEventTypes } from './domain/revocations.js';
import { ClientFrames } from './http/clientFrames.js';
import { eventsRouter } from './http/events.js';
import { SocketServer } from './http/socketServer.js';

export interface RealtimeServiceDeps extends PlatformDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
}

/** The shared consumer group of the membership read model (every replica writes the same documents). */
export const MEMBERSHIPS_PURPOSE = 'realtime-memberships';
/** How long a revocation is remembered for connections that open just after it (the gateway's cache is ≤ 1 s). */
const REVOCATION_MEMORY_MS = 10_000;
const EVICT_INTERVAL_MS = 1_000;

const decoded: ReadonlySet<string> = new Set([...framedEventTypes, ...membershipEventTypes, ...revocationEventTypes]);
const memberships: ReadonlySet<string> = new Set(membershipEventTypes);

/** Only what becomes a frame, changes membership or ends a connection is decoded (ADR 0044). */
export function broadcastSelector(record: RecordHeaders): boolean {
  return record.type === undefined || decoded.has(record.type);
}

/**
 * Composition root of the realtime service (ADR 0069): a broadcast consumer of its own per replica
 * feeds the retention window and the fan-out to the connections this replica holds (WebSocket and
 * SSE); a shared consumer group projects group memberships, read when a user connects.
 */
export function createRealtimeService(deps: RealtimeServiceDeps, config: Pick<RealtimeConfig, 'retentionSeconds' | 'retentionEvents' | 'maxBufferedBytes'>): RunnableService {
  const { db, kafka, logger } = deps;
  const now = () => Date.now();
  const readModels = new RealtimeReadModels(db);
  const window = new RetentionWindow({ retentionMs: config.retentionSeconds * 1_000, maxEvents: config.retentionEvents });
  const index = new MembershipIndex();
  const registry = new ConnectionRegistry();
  const revocations = new RecentRevocations(REVOCATION_MEMORY_MS);
  const fanout = new Fanout({ window, index, registry, revocations, now });
  const sessions = new Sessions({ window, index, registry, revocations, fanout, groupsOf: (appId, uid) => readModels.groupsOf(appId, uid), now, logger });

  const membershipConsumer = new EventConsumer(kafka, {
    groupId: consumerGroupFor(MEMBERSHIPS_PURPOSE, db.databaseName),
    topics: [topics.conversations],
    logger,
    select: (records) => records.map((r) => r.type === undefined || memberships.has(r.type)),
    handler: (events) => readModels.apply(events),
  });
  // A group of this process alone, new at each start: every replica reads every record.
  const broadcast = new BroadcastConsumer(kafka, {
    groupId: `realtime-${hostname()}-${randomUUID()}`,
    topics: [topics.messages, topics.conversations, topics.users],
    resumeAt: (topic, partition) => window.positionOf(topic, partition),
    fromTimestamp: () => now() - config.retentionSeconds * 1_000,
    select: broadcastSelector,
    onStart: (starts) => fanout.onStart(starts),
    onBatch: (topic, partition, records) => fanout.onBatch(topic, partition, records),
    logger,
  });
  const sockets = new SocketServer(sessions, new ClientFrames(), config.maxBufferedBytes, logger);
  const events = eventsRouter(sessions, config.maxBufferedBytes);

  // Ready once the window has read what was on the topics at start: a resume served before would
  // answer `resync_required` for cursors another replica can still serve.
  let caughtUp = false;
  let evictTimer: NodeJS.Timeout | undefined;
  let stopGauges: (() => void) | undefined;
  const waitForCatchUp = async () => {
    const marks = await broadcast.highWatermarks();
    while (!marks.every((m) => m.topic === topics.users || (window.positionOf(m.topic, m.partition) ?? -1) >= m.offset)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    caughtUp = true;
    logger.info({ kept: window.length }, 'realtime window caught up with the topics');
  };
  deps.probes?.add('window', () => caughtUp && broadcast.health().state === 'running');
  deps.probes?.add('memberships', () => membershipConsumer.health().state === 'running');

  return {
    http: createServiceApp({ logger, routers: [events.router], bodyLimit: '1kb' }),
    upgrade: sockets.upgrade,
    disconnectClients() {
      sockets.closeAll();
      events.closeAll();
    },
    async start() {
      await readModels.ensureIndexes();
      await ensureTopics(kafka, [topics.messages, topics.conversations, topics.users], deps.topicSettings);
      await membershipConsumer.start();
      await broadcast.start();
      void waitForCatchUp().catch((error: unknown) => logger.error({ err: error }, 'reading the topics\' watermarks failed; the replica stays unready'));
      evictTimer = setInterval(() => {
        window.evict(now());
        revocations.forgetBefore(now());
      }, EVICT_INTERVAL_MS);
      stopGauges = sampledGauge('realtime_connections', 'Open realtime connections (WebSocket and SSE) on this replica.', [], () => [{ labels: {}, value: registry.size }]);
    },
    async stop() {
      if (evictTimer) clearInterval(evictTimer);
      stopGauges?.();
      await broadcast.stop();
      await membershipConsumer.stop();
    },
  };
}
