import { CONFIGURATION_FENCE_TIMEOUT_MS, ProjectionCatchUp, createEventPipeline } from '@chat/runtime';
import type { PlatformDeps, RunnableService } from '@chat/runtime';
import { topics } from '@chat/contracts';
import { createServiceApp } from '@chat/http';
import { LagReader, PATIENT_GATHER, consumerGroupFor } from '@chat/kafka';
import type { RecordHeaders } from '@chat/kafka';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { CallsReadModels } from './adapters/readModels.js';
import { callsRouter } from './http/calls.js';
import { internalRouter } from './http/internalRoutes.js';
import { callEventTypes } from './projections/calls.js';

/** Probes and topic settings (PlatformDeps) go on to the event pipeline. */
export interface CallsServiceDeps extends PlatformDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
}

/** The projection's consumer group: the reads wait for its committed offsets. */
export const CALLS_PROJECTION = 'calls.projections';
/** How often a waiting read asks for the group's committed offsets (ADR 0004's poll). */
const CATCH_UP_POLL_MS = 25;

const folded: ReadonlySet<string> = new Set(callEventTypes);

/**
 * Which records of the messages topic the calls projection decodes, from their headers alone (ADR
 * 0044): sends of category `call` only (ADR 0086); a record without a type header, or a send without a
 * category header (published before producers set it), is kept.
 */
export function callRecordSelector(records: readonly RecordHeaders[]): boolean[] {
  return records.map((record) => record.type === undefined || (folded.has(record.type) && (record.category === undefined || record.category === 'call')));
}

/**
 * Composition root of the calls service (ADR 0064): one consumer group on the messages topic folds
 * call messages into call records, and the calls API reads them once that group has caught up.
 */
export function createCallsService(deps: CallsServiceDeps): RunnableService {
  const { db, kafka, logger } = deps;
  const readModels = new CallsReadModels(db);
  const pipeline = createEventPipeline({
    ...deps,
    // Nothing is published there yet; the topic is the service's own, as every service has one.
    publishesTo: topics.calls,
    consumes: [topics.messages],
    consumerPurpose: CALLS_PROJECTION,
    select: callRecordSelector,
    // A calls read waits for this group's commit (up to 2 s, ADR 0064): half a second of gathering while
    // busy is within it, and the group fetches about twice a second whatever the send rate (ADR 0095).
    gather: PATIENT_GATHER,
    project: (events) => readModels.apply(events),
    ownReadModels: readModels,
  });
  const positions = new LagReader(kafka);
  const catchUp = new ProjectionCatchUp({
    positions,
    groupId: consumerGroupFor(CALLS_PROJECTION, db.databaseName),
    topics: [topics.messages],
    timeoutMs: CONFIGURATION_FENCE_TIMEOUT_MS,
    pollMs: CATCH_UP_POLL_MS,
    onGiveUp: (reason, detail) => logger.warn({ reason, detail }, 'calls read answered before the calls projection caught up with the messages topic'),
  });

  return {
    http: createServiceApp({ logger, routers: [callsRouter(readModels, catchUp), internalRouter(readModels, catchUp)], bodyLimit: '4kb' }),
    async start() {
      await readModels.ensureIndexes();
      await pipeline.start();
    },
    async stop() {
      await pipeline.stop();
      await positions.close();
    },
  };
}
