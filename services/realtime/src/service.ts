import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { blockEventTypes, topics } from '@chat/contracts';
import { UsersLookups, createServiceApp, sampledGauge } from '@chat/http';
import { BroadcastConsumer, EventConsumer, PATIENT_GATHER, consumerGroupFor, ensureTopics } from '@chat/kafka';
import type { RecordHeaders } from '@chat/kafka';
import type { PlatformDeps, RunnableService } from '@chat/runtime';
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { EphemeralBus } from './adapters/ephemeralBus.js';
import { RealtimeReadModels } from './adapters/readModels.js';
import { RedisPresence } from './adapters/redisPresence.js';
import { ConnectionRegistry } from './app/connections.js';
import { Ephemeral } from './app/ephemeral.js';
import { Fanout } from './app/fanout.js';
import { KnownUsers } from './app/knownUsers.js';
import { Sessions } from './app/sessions.js';
import type { RealtimeConfig } from './config.js';
import { framedEventTypes } from './domain/frames.js';
import { membershipEventTypes } from './domain/membership.js';
import { BlockIndex } from './domain/blockIndex.js';
import { MembershipIndex } from './domain/membershipIndex.js';
import { RecentPeers } from './domain/peers.js';
import { LocalPresence } from './domain/presence.js';
import { RetentionWindow } from './domain/retentionWindow.js';
import { RecentRevocations, revocationEventTypes } from './domain/revocations.js';
import { ClientFrames } from './http/clientFrames.js';
import { eventsRouter } from './http/events.js';
import { SocketServer } from './http/socketServer.js';
import { userReadModelEventTypes } from './projections/users.js';

export interface RealtimeServiceDeps extends PlatformDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
  redis: Redis;
  /** The users service's replica origins (`USERS_URL`): whether a typing notice's receiver exists (ADR 0101). */
  usersUrls: readonly string[];
}

/** The shared consumer group of the membership read model (every replica writes the same documents). */
export const MEMBERSHIPS_PURPOSE = 'realtime-memberships';
/** How long a revocation is remembered for connections that open just after it (the gateway's cache is ≤ 1 s). */
const REVOCATION_MEMORY_MS = 10_000;
const EVICT_INTERVAL_MS = 1_000;
/** A replica's word that a user is connected lasts this long: a crashed replica's users go offline by then. */
const PRESENCE_VOUCH_MS = 10_000;
const PRESENCE_HEARTBEAT_MS = 3_000;
/**
 * A replica that has not beaten (every second) for this long is dead to the others: the first to
 * sweep takes its users offline, so a killed replica's users are announced offline within ~6 s.
 */
const REPLICA_ALIVE_MS = 5_000;
/** Users whose known existence is remembered (a typing notice to them needs no read). */
const KNOWN_USERS_CACHED = 50_000;

const decoded: ReadonlySet<string> = new Set([...framedEventTypes, ...membershipEventTypes, ...revocationEventTypes, ...blockEventTypes]);
const projected: ReadonlySet<string> = new Set([...membershipEventTypes, ...userReadModelEventTypes]);

/** Only what becomes a frame, changes membership or ends a connection is decoded (ADR 0044). */
export function broadcastSelector(record: RecordHeaders): boolean {
  return record.type === undefined || decoded.has(record.type);
}

/**
 * Composition root of the realtime service (ADR 0069): a broadcast consumer of its own per replica
 * feeds the retention window and the fan-out to the connections this replica holds (WebSocket and
 * SSE); a shared consumer group projects group memberships, read when a user connects.
 */
export function createRealtimeService(
  deps: RealtimeServiceDeps,
  config: Pick<RealtimeConfig, 'retentionSeconds' | 'retentionEvents' | 'maxBufferedBytes' | 'presenceOfflineMs'>,
): RunnableService {
  const { db, kafka, logger, redis } = deps;
  const now = () => Date.now();
  const readModels = new RealtimeReadModels(db);
  const window = new RetentionWindow({ retentionMs: config.retentionSeconds * 1_000, maxEvents: config.retentionEvents });
  const index = new MembershipIndex();
  const registry = new ConnectionRegistry();
  const revocations = new RecentRevocations(REVOCATION_MEMORY_MS);
  // Block events are remembered as long as revocations: far longer than the read model lags behind.
  const blocks = new BlockIndex(REVOCATION_MEMORY_MS);
  const fanout = new Fanout({ window, index, registry, revocations, blocks, now });
  const peers = new RecentPeers({ maxAgeMs: config.retentionSeconds * 1_000, maxPairs: config.retentionEvents });
  // Asked of the users service, not copied from every UserCreated (ADR 0101).
  const knownUsers = new KnownUsers((appId, uid) => usersClient.userExists(appId, uid), KNOWN_USERS_CACHED);
  const usersClient = new UsersLookups(deps.usersUrls);
  const bus = new EphemeralBus(redis, logger);
  const ephemeral = new Ephemeral({
    bus,
    store: new RedisPresence(redis, `${hostname()}-${randomUUID()}`, REPLICA_ALIVE_MS),
    local: new LocalPresence(config.presenceOfflineMs),
    registry,
    index,
    blocks,
    access: {
      isMember: (appId, guid, uid) => index.isMember(appId, guid, uid),
      userExists: (appId, uid) => knownUsers.exists(appId, uid),
    },
    async audienceOf(appId, uid) {
      return [...new Set([...(await readModels.friendsOf(appId, uid)), ...peers.peersOf(appId, uid)])];
    },
    vouchMs: PRESENCE_VOUCH_MS,
    now,
    logger,
  });
  const sessions = new Sessions({
    window,
    index,
    registry,
    revocations,
    fanout,
    groupsOf: (appId, uid) => readModels.groupsOf(appId, uid),
    blocks,
    blocksOf: (appId, uid) => readModels.blocksOf(appId, uid),
    now,
    logger,
    presence: ephemeral,
  });

  const membershipConsumer = new EventConsumer(kafka, {
    groupId: consumerGroupFor(MEMBERSHIPS_PURPOSE, db.databaseName),
    topics: [topics.conversations, topics.users],
    logger,
    select: (records) => records.map((r) => r.type === undefined || projected.has(r.type)),
    handler: (events) => readModels.apply(events),
  });
  // A group of this process alone, new at each start: every replica reads every record.
  const broadcast = new BroadcastConsumer(kafka, {
    groupId: `realtime-${hostname()}-${randomUUID()}`,
    topics: [topics.messages, topics.conversations, topics.users],
    resumeAt: (topic, partition) => window.positionOf(topic, partition),
    fromTimestamp: () => now() - config.retentionSeconds * 1_000,
    select: broadcastSelector,
    // With no connection here no frame waits on a fetch: while records keep coming, a fetch carries
    // up to half a second of them, about two fetches a second whatever the rate (ADR 0083, 0086, 0125).
    // The first connection turns it off; its first live frames may wait out the one patient fetch in
    // flight (≤ 500 ms), and what that fetch carries is delivered live to it (planned at its batch).
    gather: () => (registry.size === 0 ? PATIENT_GATHER : null),
    onStart: (starts) => fanout.onStart(starts),
    onBatch: (topic, partition, records) => {
      fanout.onBatch(topic, partition, records);
      if (topic === topics.messages) for (const record of records) peers.observe(record.event, record.timestamp);
      if (topic === topics.users) for (const record of records) if (record.event?.type === 'UserDeleted') knownUsers.forget(record.event.appId, record.event.data.uid);
    },
    logger,
  });
  const clientFrames = new ClientFrames(
    new Map([
      ['typing_started', ephemeral.typing],
      ['typing_ended', ephemeral.typing],
    ]),
  );
  const sockets = new SocketServer(sessions, clientFrames, config.maxBufferedBytes, logger);
  const events = eventsRouter(sessions, config.maxBufferedBytes);

  // Ready once the window has read what was on the topics at start: a resume served before would
  // answer `resync_required` for cursors another replica can still serve.
  let caughtUp = false;
  let evictTimer: NodeJS.Timeout | undefined;
  let heartbeatTimer: NodeJS.Timeout | undefined;
  const presenceFailed = (error: unknown) => logger.warn({ err: error }, 'presence not updated in redis');
  let stopGauges: (() => void) | undefined;
  const waitForCatchUp = async () => {
    const marks = await broadcast.highWatermarks();
    while (!marks.every((m) => m.topic === topics.users || (window.positionOf(m.topic, m.partition) ?? -1) >= m.offset)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    caughtUp = true;
    logger.info({ kept: window.length }, 'realtime window caught up with the topics');
  };
  // The group read model answers every connect: a store that cannot is a replica that cannot serve.
  deps.probes?.add('store', async () => (await db.command({ ping: 1 }))['ok'] === 1);
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
      // Presence first: the server may take connections while the consumers below join their groups
      // (a join waits for the group's rebalance), and a replica holding users must already beat, or a
      // crash before its first beat would leave them online with no sweeper knowing of it.
      evictTimer = setInterval(() => {
        window.evict(now());
        peers.evict(now());
        revocations.forgetBefore(now());
        blocks.forgetBefore(now());
        ephemeral.tick().catch(presenceFailed);
        ephemeral.watchReplicas().catch(presenceFailed);
      }, EVICT_INTERVAL_MS);
      heartbeatTimer = setInterval(() => void ephemeral.heartbeat().catch(presenceFailed), PRESENCE_HEARTBEAT_MS);
      void ephemeral.watchReplicas().catch(presenceFailed);
      // Not awaited: a replica without Redis still pushes messages; typing and presence wait for it.
      void bus.subscribe(ephemeral.deliver).catch((error: unknown) => logger.warn({ err: error }, 'typing and presence are not received (redis)'));
      await ensureTopics(kafka, [topics.messages, topics.conversations, topics.users], deps.topicSettings);
      await membershipConsumer.start();
      await broadcast.start();
      void waitForCatchUp().catch((error: unknown) => logger.error({ err: error }, 'reading the topics\' watermarks failed; the replica stays unready'));
      stopGauges = sampledGauge('realtime_connections', 'Open realtime connections (WebSocket and SSE) on this replica.', [], () => [{ labels: {}, value: registry.size }]);
    },
    async stop() {
      if (evictTimer) clearInterval(evictTimer);
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      await bus.close();
      stopGauges?.();
      await broadcast.stop();
      await membershipConsumer.stop();
      await usersClient.close();
    },
  };
}
