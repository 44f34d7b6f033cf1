import { Admission, Probes, collectProcessMetrics, createLogger, listen, onShutdownSignal, refuseUnavailable, startTracing, withOperations } from '@chat/http';
import { LagReader, createKafka } from '@chat/kafka';
import { connectMongo } from '@chat/mongo';
import type { IncomingMessage, RequestListener } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { BacklogGate, deploymentGroups } from './backlogGate.js';
import { routeMatcher } from './routeMatcher.js';
import type { BacklogLimits } from './backlogPolicy.js';
import type { ProcessConfig } from './config.js';
import type { PlatformDeps } from './platformDeps.js';

export interface RunnableService {
  http: RequestListener;
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * The operations whose events fan out to the deployment's consumers on `topics`: while a consumer
   * group falls behind there, these are refused with 503 and Retry-After (ADR 0054). Other writes (an
   * operator's bulk import, settings) are bounded by their caller, not by open-ended traffic.
   */
  backlog?: { topics: readonly string[]; operations: readonly string[] };
  /** Takes HTTP upgrades (the realtime service's WebSockets); without it an upgrade is refused. */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Ends the long-lived exchanges (sockets, event streams) when shutdown begins: the server's close
   * waits for every connection, and these never end by themselves.
   */
  disconnectClients?(): void;
}

/**
 * What a service needs besides its store and broker (management's Redis): opened after them and
 * handed to `create`, closed after the service has stopped and before the store is.
 */
export interface ServiceResources<Resources> {
  open(deps: { logger: Logger; probes: Probes }): Resources;
  close(resources: Resources): Promise<void>;
}

type ServiceDeps = { db: Db; kafka: Kafka; logger: Logger } & PlatformDeps;

/**
 * Process concerns of a service's main.ts: tracing (when configured), connect, start, listen (with
 * /healthz, /readyz and /metrics in front of the API), and on SIGINT/SIGTERM stop taking
 * requests, then stop consumers and producers, then disconnect. A service without admission
 * limits in its configuration is not bounded by them (management: every key look-up is answered).
 */
export async function runService(name: string, config: Readonly<ProcessConfig>, create: (deps: ServiceDeps) => RunnableService): Promise<void>;
export async function runService<Resources>(
  name: string,
  config: Readonly<ProcessConfig>,
  create: (deps: ServiceDeps, resources: Resources) => RunnableService,
  resources: ServiceResources<Resources>,
): Promise<void>;
export async function runService<Resources>(
  name: string,
  config: Readonly<ProcessConfig>,
  create: (deps: ServiceDeps, resources?: Resources) => RunnableService,
  resources?: ServiceResources<Resources>,
): Promise<void> {
  const logger = createLogger(name, config.logLevel);
  collectProcessMetrics();
  // Before anything that makes spans: off (nothing loaded) unless an OTLP endpoint is configured.
  const tracing = await startTracing(name, logger);
  const probes = new Probes();
  const mongo = await connectMongo(config.mongoUrl, config.mongoDb, name);
  const kafka = createKafka(name, config.kafkaBrokers, logger, config.kafkaSecurity);
  const extra = resources ? { value: resources.open({ logger, probes }) } : undefined;
  const service = create({ db: mongo.db, kafka, logger, probes, topicSettings: config.topicSettings }, extra?.value);
  await service.start();
  // Past capacity the service answers a fast 503 instead of queueing until clients time out; the
  // probes and /metrics stand in front of that, so an overloaded process is not restarted for it.
  const backlog = service.backlog && config.backlog && config.backlog.maxDrainMs > 0 ? startBacklogGate(name, config.mongoDb, config.backlog, kafka, service.backlog.topics, logger) : null;
  const gated = backlog && service.backlog ? refusingWhileBehind(backlog.gate, routeMatcher(service.backlog.operations), service.http) : service.http;
  const admitted = config.admission ? new Admission(config.admission).wrap(gated) : gated;
  const server = await listen(withOperations(admitted, probes), config.port, config.host);
  const upgrade = service.upgrade?.bind(service);
  if (upgrade) server.server.on('upgrade', upgrade);
  logger.info({ port: server.port }, `${name} service listening`);
  onShutdownSignal(
    async () => {
      const closed = server.close();
      service.disconnectClients?.();
      await closed;
      await backlog?.stop();
      await service.stop();
      if (resources && extra) await resources.close(extra.value);
      await mongo.close();
      // Last: the spans of the shutdown's own work are exported too.
      await tracing?.shutdown();
    },
    (message) => logger.info(message),
  );
}

function startBacklogGate(name: string, mongoDb: string, limits: BacklogLimits & { intervalMs: number }, kafka: Kafka, topics: readonly string[], logger: Logger) {
  const lags = new LagReader(kafka);
  const gate = new BacklogGate({ ...limits, topics, countsGroup: deploymentGroups(mongoDb, name), lags, logger });
  gate.start();
  return {
    gate,
    async stop() {
      await gate.stop();
      await lags.close();
    },
  };
}

/** The named operations while the consumers are behind are refused before any handler runs; the rest pass. */
function refusingWhileBehind(gate: BacklogGate, sheds: (method: string, url: string) => boolean, listener: RequestListener): RequestListener {
  return (req, res) => {
    const refusal = sheds(req.method ?? 'GET', req.url ?? '/') ? gate.refusal() : null;
    if (refusal) return refuseUnavailable(res, refusal.message, refusal.retryAfterSeconds);
    listener(req, res);
  };
}
