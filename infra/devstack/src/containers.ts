import type { PartName } from './infrastructure.js';

/**
 * Where the infrastructure runs (`INFRA_RUNTIME`): `processes` (the default: Kafka, FerretDB and Redis
 * as local processes, started from `.infra/`), `containers` (Kafka, the real MongoDB and Redis as
 * containers through testcontainers; fails when no container engine answers) or `auto` (containers
 * when an engine answers, processes otherwise). A part given by KAFKA_BROKERS / MONGO_URL / REDIS_URL
 * is used as given in every mode.
 */
export type InfraRuntime = 'processes' | 'containers' | 'auto';

const RUNTIMES: readonly InfraRuntime[] = ['processes', 'containers', 'auto'];

export function infraRuntimeFrom(env: NodeJS.ProcessEnv): InfraRuntime {
  const value = env['INFRA_RUNTIME'];
  if (value === undefined || value === '') return 'processes';
  if ((RUNTIMES as readonly string[]).includes(value)) return value as InfraRuntime;
  throw new Error(`INFRA_RUNTIME must be one of ${RUNTIMES.join(', ')}, got "${value}"`);
}

/** Whether the parts to start go into containers: asked for, or `auto` with an engine answering. */
export function startsContainers(runtime: InfraRuntime, engineAnswers: boolean): boolean {
  if (runtime === 'containers' && !engineAnswers) {
    throw new Error('INFRA_RUNTIME=containers, but no container engine answers (DOCKER_HOST or the local Docker socket)');
  }
  return runtime === 'containers' || (runtime === 'auto' && engineAnswers);
}

/** What one part's container is: the image and the settings our services rely on. */
export interface ContainerDefinition {
  part: PartName;
  image: string;
  /** Set in the container's environment (broker settings for Kafka). */
  environment: Record<string, string>;
}

/**
 * The containers, with images overridable (KAFKA_IMAGE, MONGO_IMAGE, REDIS_IMAGE). Kafka is Confluent's
 * image in KRaft mode (testcontainers' Kafka module advertises the mapped port to clients); it gets the
 * broker settings of `infra/kafka/server.properties` that our services depend on: topics created on
 * first use with three partitions, and a consumer group's first join not held back. MongoDB is the real
 * server (a one-member replica set, as the module starts it), not FerretDB.
 */
export function containerDefinitions(env: NodeJS.ProcessEnv): Record<PartName, ContainerDefinition> {
  return {
    kafka: {
      part: 'kafka',
      image: env['KAFKA_IMAGE'] || 'confluentinc/cp-kafka:7.9.1',
      environment: {
        KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
        KAFKA_NUM_PARTITIONS: '3',
        KAFKA_DEFAULT_REPLICATION_FACTOR: '1',
        KAFKA_MIN_INSYNC_REPLICAS: '1',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      },
    },
    ferretdb: { part: 'ferretdb', image: env['MONGO_IMAGE'] || 'mongo:8.0', environment: {} },
    redis: { part: 'redis', image: env['REDIS_IMAGE'] || 'redis:7.4', environment: {} },
  };
}

export interface StartedContainers {
  urls: Partial<Record<PartName, string>>;
  stop(): Promise<void>;
}

/** What the engine check needs of testcontainers (a parameter, so a unit test can give a failing load). */
export type LoadTestcontainers = () => Promise<{ getContainerRuntimeClient: () => Promise<unknown> }>;

/**
 * Whether a container engine answers. testcontainers is loaded only here, never on the process path.
 * Only the engine's answer is a "no": a testcontainers that cannot even be loaded (version 12 pulls
 * undici 8, which needs Node ≥ 22.19, and throws at import on Node 20) is an installation fault, and is
 * thrown as one, not reported as a missing engine (`auto` would otherwise fall back silently).
 */
export async function containerEngineAnswers(load: LoadTestcontainers = () => import('testcontainers')): Promise<boolean> {
  let testcontainers: Awaited<ReturnType<LoadTestcontainers>>;
  try {
    testcontainers = await load();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`testcontainers cannot be loaded on Node ${process.versions.node} (${reason}): check the installed version (infra/devstack/package.json)`, { cause: error });
  }
  try {
    await testcontainers.getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/** Starts the parts' containers together; the first failure stops the ones already started. */
export async function startContainers(parts: readonly PartName[], env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<StartedContainers> {
  const definitions = containerDefinitions(env);
  const stops: Array<() => Promise<unknown>> = [];
  const urls: Partial<Record<PartName, string>> = {};
  const stop = async () => {
    await Promise.allSettled(stops.map((stopOne) => stopOne()));
  };
  try {
    await Promise.all(
      parts.map(async (part) => {
        const definition = definitions[part];
        const began = Date.now();
        const started = await startContainer(definition);
        stops.push(started.stop);
        urls[part] = started.url;
        log(`${part}: ${definition.image} ready at ${started.url} in ${((Date.now() - began) / 1000).toFixed(1)} s (container)`);
      }),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls, stop };
}

async function startContainer(definition: ContainerDefinition): Promise<{ url: string; stop: () => Promise<unknown> }> {
  switch (definition.part) {
    case 'kafka': {
      const { KafkaContainer } = await import('@testcontainers/kafka');
      const container = await new KafkaContainer(definition.image).withKraft().withEnvironment(definition.environment).start();
      return { url: `${container.getHost()}:${container.getMappedPort(9093)}`, stop: () => container.stop() };
    }
    case 'ferretdb': {
      const { MongoDBContainer } = await import('@testcontainers/mongodb');
      const container = await new MongoDBContainer(definition.image).withEnvironment(definition.environment).start();
      // The module's one-member replica set names its member by the container's own address: connect
      // to the mapped port directly, not through replica-set discovery.
      return { url: `${container.getConnectionString()}/?directConnection=true`, stop: () => container.stop() };
    }
    case 'redis': {
      const { RedisContainer } = await import('@testcontainers/redis');
      const container = await new RedisContainer(definition.image).withEnvironment(definition.environment).start();
      return { url: container.getConnectionUrl(), stop: () => container.stop() };
    }
  }
}
