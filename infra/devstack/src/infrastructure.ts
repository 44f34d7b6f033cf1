import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brokerJvmFlags } from './brokerJvm.js';
import { ferretdbOptionalFlags } from './ferretdbFlags.js';
import { containerEngineAnswers, infraRuntimeFrom, startContainers, startsContainers } from './containers.js';
import type { StartedContainers } from './containers.js';
import { probeKafka, probeMongo, probeRedis, portIsOpen } from './probes.js';
import { killStale, spawnManaged } from './processes.js';
import type { ManagedProcess } from './processes.js';

/** The URL of a part not asked for (options.parts) is the empty string. */
export interface RunningInfrastructure {
  kafkaBrokers: string;
  mongoUrl: string;
  redisUrl: string;
  /** Parts this call spawned; stop() stops exactly these. */
  started: string[];
  /** Parts it did not spawn: given by environment variable, or already answering on their port. */
  reused: string[];
  /**
   * Kills a part this call spawned (SIGKILL by default: a crash) and waits until it is gone; `restart`
   * starts it again on the same port and data (Kafka keeps its log) and waits until it answers.
   * For fault tests; a reused part cannot be controlled.
   */
  kill(part: PartName, signal?: NodeJS.Signals): Promise<void>;
  restart(part: PartName): Promise<void>;
  stop(): Promise<void>;
}

export interface InfrastructureOptions {
  /** Defaults to the repository this package sits in. */
  repoRoot?: string;
  log?: (line: string) => void;
  /**
   * Start a Kafka this call spawns on an empty data directory. Test runs use it: every run makes new
   * consumer groups that read from the beginning, so a kept log would replay every earlier run's events.
   */
  freshKafkaData?: boolean;
  /**
   * The parts to provide (default all three). A store benchmark needs only FerretDB, and a Kafka it
   * does not use would cost a JVM's start-up and memory on a shared machine. Parts left out have no URL.
   */
  parts?: readonly PartName[];
}

export type PartName = 'kafka' | 'ferretdb' | 'redis';

interface Part {
  name: PartName;
  envVar: 'KAFKA_BROKERS' | 'MONGO_URL' | 'REDIS_URL';
  portEnvVar: string;
  port: number;
  url: string;
  probe(url: string): Promise<void>;
  /** Anything that must happen before the spawn (Kafka formats its storage); returns the command. */
  command(): Promise<{ file: string; args: string[] }>;
  /** Found in /proc/<pid>/cmdline of our own process; guards the stale-pid kill. */
  commandLineMarker: string;
  stopGraceMs: number;
}

const READY_TIMEOUT_MS = 120_000;
const LOG_TAIL_LINES = 40;
// A stopped (SIGSTOP) or wedged server accepts TCP connections but never answers; clients then wait forever.
const PROBE_TIMEOUT_MS = 5_000;
const HOST = '127.0.0.1';
const PART_ORDER: readonly PartName[] = ['kafka', 'ferretdb', 'redis'];
const run = promisify(execFile);

export async function startInfrastructure(options: InfrastructureOptions = {}): Promise<RunningInfrastructure> {
  const root = resolve(options.repoRoot ?? fileURLToPath(new URL('../../../', import.meta.url)));
  const log = options.log ?? ((line: string) => process.stderr.write(`[devstack] ${line}\n`));
  const wanted = options.parts ?? PART_ORDER;
  const parts = defineParts(root, options.freshKafkaData ?? false).filter((part) => wanted.includes(part.name));
  const urls = { kafka: '', ferretdb: '', redis: '' } as Record<PartName, string>;
  const reused: PartName[] = [];
  const toStart: Part[] = [];

  await Promise.all(
    parts.map(async (part) => {
      const given = process.env[part.envVar];
      if (given) {
        urls[part.name] = given;
        reused.push(part.name);
        log(`${part.name}: using ${part.envVar}=${given.replace(/\/\/[^/@]*@/, '//***@')}`);
      } else if ((await portIsOpen(part.port)) && (await answers(part))) {
        urls[part.name] = part.url;
        reused.push(part.name);
        log(`${part.name}: reusing the instance already answering at ${part.url}`);
      } else {
        urls[part.name] = part.url;
        toStart.push(part);
      }
    }),
  );

  const started: ManagedProcess[] = [];
  let containers: StartedContainers | null = null;
  let stopPromise: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopPromise ??= Promise.all([...started.map((p) => p.stop()), containers?.stop()]).then(() => undefined);
    return stopPromise;
  };

  // Containers only when asked for (INFRA_RUNTIME): the engine check itself loads testcontainers.
  const runtime = infraRuntimeFrom(process.env);
  if (toStart.length > 0 && runtime !== 'processes' && startsContainers(runtime, await containerEngineAnswers())) {
    containers = await startContainers(toStart.map((part) => part.name), process.env, log);
    for (const part of toStart) urls[part.name] = containers.urls[part.name]!;
  } else if (toStart.length > 0) {
    await mkdir(join(root, '.infra', 'logs'), { recursive: true });
    await mkdir(join(root, '.infra', 'run'), { recursive: true });
    await prepare(root, toStart.map((p) => p.name), log);
    // The first failure abandons the other parts' waits, so a broken start fails fast instead of after 120 s.
    const abandon = new AbortController();
    let firstFailure: unknown;
    await Promise.all(
      toStart.map((part) =>
        launch(root, part, log, started, abandon.signal).catch((err: unknown) => {
          if (!abandon.signal.aborted) firstFailure = err;
          abandon.abort();
        }),
      ),
    );
    if (abandon.signal.aborted) {
      await stop();
      throw firstFailure;
    }
  }

  const spawnedPart = (name: PartName): ManagedProcess => {
    const found = [...started].reverse().find((p) => p.name === name);
    if (!found && containers?.urls[name]) throw new Error(`${name} runs in a container; fault tests kill and restart local processes only`);
    if (!found) throw new Error(`${name} was not started by this stack, so it cannot be killed or restarted`);
    return found;
  };
  // A restart keeps the data: Kafka's log must outlive the crash, as on a real broker.
  const restartable = defineParts(root, false);

  return {
    kafkaBrokers: urls.kafka,
    async kill(name, signal = 'SIGKILL') {
      const process = spawnedPart(name);
      process.signal(signal);
      await process.exited;
    },
    async restart(name) {
      const process = spawnedPart(name);
      if (!process.hasExited()) await process.stop();
      await launch(root, restartable.find((p) => p.name === name)!, log, started, new AbortController().signal);
    },
    mongoUrl: urls.ferretdb,
    redisUrl: urls.redis,
    started: sortParts([...started.map((p) => p.name as PartName), ...(Object.keys(containers?.urls ?? {}) as PartName[])]),
    reused: sortParts(reused),
    stop,
  };
}

function defineParts(root: string, freshKafkaData: boolean): Part[] {
  const kafkaPort = portFromEnv('KAFKA_PORT', 9092);
  const controllerPort = portFromEnv('KAFKA_CONTROLLER_PORT', 9093);
  const mongoPort = portFromEnv('MONGO_PORT', 27017);
  const redisPort = portFromEnv('REDIS_PORT', 6379);
  const infra = join(root, '.infra');

  return [
    {
      name: 'kafka',
      envVar: 'KAFKA_BROKERS',
      portEnvVar: 'KAFKA_PORT',
      port: kafkaPort,
      url: `${HOST}:${kafkaPort}`,
      probe: probeKafka,
      commandLineMarker: 'kafka.Kafka',
      // A clean shutdown writes the metadata snapshot and saves log recovery on the next start.
      stopGraceMs: 15_000,
      command: async () => {
        const dir = join(infra, 'kafka');
        const dataDir = join(dir, `data-${kafkaPort}`);
        if (freshKafkaData) await rm(dataDir, { recursive: true, force: true });
        await mkdir(dataDir, { recursive: true });
        const template = await readFile(join(root, 'infra', 'kafka', 'server.properties'), 'utf8');
        const propsFile = join(dir, `server-${kafkaPort}.properties`);
        await writeFile(
          propsFile,
          overrideProperties(template, {
            listeners: `PLAINTEXT://${HOST}:${kafkaPort},CONTROLLER://${HOST}:${controllerPort}`,
            'advertised.listeners': `PLAINTEXT://${HOST}:${kafkaPort}`,
            'controller.quorum.voters': `1@${HOST}:${controllerPort}`,
            'log.dirs': dataDir,
          }),
        );
        const javaBase = [`-Dlog4j.configuration=file:${await brokerLog4j(root, dir, kafkaPort)}`, '-cp', join(dir, 'libs', '*')];
        if (!existsSync(join(dataDir, 'meta.properties'))) {
          const tool = [...javaBase, 'kafka.tools.StorageTool'];
          const { stdout } = await run('java', [...tool, 'random-uuid']);
          const clusterId = stdout.trim().split('\n').pop() ?? '';
          await run('java', [...tool, 'format', '-t', clusterId, '-c', propsFile, '--ignore-formatted']);
        }
        return { file: 'java', args: [...brokerJvmFlags(), ...javaBase, 'kafka.Kafka', propsFile] };
      },
    },
    {
      name: 'ferretdb',
      envVar: 'MONGO_URL',
      portEnvVar: 'MONGO_PORT',
      port: mongoPort,
      url: `mongodb://${HOST}:${mongoPort}/`,
      probe: probeMongo,
      commandLineMarker: join(infra, 'bin', 'ferretdb'),
      stopGraceMs: 5_000,
      command: () =>
        Promise.resolve({
          file: join(infra, 'bin', 'ferretdb'),
          args: [
            '--listen-addr', `${HOST}:${mongoPort}`,
            '--sqlite-dir', join(infra, 'ferretdb', `data-${mongoPort}`),
            ...ferretdbOptionalFlags(),
          ],
        }),
    },
    {
      name: 'redis',
      envVar: 'REDIS_URL',
      portEnvVar: 'REDIS_PORT',
      port: redisPort,
      url: `redis://${HOST}:${redisPort}`,
      probe: probeRedis,
      commandLineMarker: 'redis-server',
      stopGraceMs: 5_000,
      command: () =>
        Promise.resolve({
          file: 'redis-server',
          args: ['--port', String(redisPort), '--bind', HOST, '--save', '', '--appendonly', 'no'],
        }),
    },
  ];
}

async function launch(
  root: string,
  part: Part,
  log: (line: string) => void,
  started: ManagedProcess[],
  abandoned: AbortSignal,
): Promise<void> {
  const t0 = performance.now();
  // Keyed by port too, so a second stack on other ports (e.g. tests beside a dev stack) shares nothing.
  const logFile = join(root, '.infra', 'logs', `${part.name}-${part.port}.log`);
  const pidFile = join(root, '.infra', 'run', `${part.name}-${part.port}.pid`);
  if (await killStale(pidFile, part.commandLineMarker, part.stopGraceMs)) {
    log(`${part.name}: killed a stale earlier instance that did not answer`);
  } else if (await portIsOpen(part.port)) {
    throw new Error(
      `${part.name}: port ${part.port} is taken by a program that does not answer like ${part.name}; ` +
        `stop it, choose another port with ${part.portEnvVar}, or point ${part.envVar} at a running ${part.name}`,
    );
  }
  const { file, args } = await part.command();
  const child = await spawnManaged({
    name: part.name,
    file,
    args,
    cwd: root,
    logFile,
    pidFile,
    stopGraceMs: part.stopGraceMs,
    onUnexpectedExit: (detail) => log(`${part.name}: exited unexpectedly (${detail}); see ${logFile}`),
  });
  started.push(child);

  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown;
  for (;;) {
    if (abandoned.aborted) throw new Error(`${part.name}: start-up abandoned`);
    if (child.hasExited()) {
      await printTail(logFile, log);
      throw new Error(`${part.name} exited during start-up; its log is ${logFile}`);
    }
    try {
      await withTimeout(part.probe(part.url), PROBE_TIMEOUT_MS);
      break;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      await printTail(logFile, log);
      const reason = lastError instanceof Error ? lastError.message : String(lastError);
      throw new Error(`${part.name} did not answer within ${READY_TIMEOUT_MS / 1000} s (last error: ${reason}); its log is ${logFile}`);
    }
    await sleep(200);
  }
  log(`${part.name}: ready at ${part.url} in ${((performance.now() - t0) / 1000).toFixed(1)} s (pid ${child.pid})`);
}

async function prepare(root: string, names: PartName[], log: (line: string) => void): Promise<void> {
  const script = join(root, 'infra', 'scripts', 'prepare.sh');
  const child = spawn('bash', [script, ...names], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const forward = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      output.push(line);
      log(line);
    }
  };
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  const code = await new Promise<number | null>((resolveExit, reject) => {
    child.once('error', reject);
    child.once('close', resolveExit);
  });
  if (code !== 0) {
    throw new Error(`infra/scripts/prepare.sh ${names.join(' ')} failed with exit code ${code}:\n${output.slice(-LOG_TAIL_LINES).join('\n')}`);
  }
}

async function answers(part: Part): Promise<boolean> {
  try {
    await withTimeout(part.probe(part.url), PROBE_TIMEOUT_MS);
    return true;
  } catch {
    return false;
  }
}

async function printTail(logFile: string, log: (line: string) => void): Promise<void> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  const lines = text.trimEnd().split('\n').slice(-LOG_TAIL_LINES);
  log(`last ${lines.length} lines of ${logFile}:`);
  for (const line of lines) log(`  | ${line}`);
}

/**
 * The broker's log4j file. With KAFKA_REQUEST_LOG set to a file, the broker also writes its request log
 * there (`kafka.request.logger` at DEBUG: each completed request's API, client, connection, the request
 * and the answer without records, and its times) for bench/kafka-request-tally.mjs (ADR 0121); a
 * measurement aid, far too costly to leave on under load.
 */
async function brokerLog4j(root: string, dir: string, kafkaPort: number): Promise<string> {
  const base = join(root, 'infra', 'kafka', 'log4j.properties');
  const requestLog = process.env['KAFKA_REQUEST_LOG'];
  if (!requestLog) return base;
  const file = join(dir, `log4j-requests-${kafkaPort}.properties`);
  const lines = [
    (await readFile(base, 'utf8')).trimEnd(),
    'log4j.logger.kafka.request.logger=DEBUG, requests',
    'log4j.additivity.kafka.request.logger=false',
    'log4j.appender.requests=org.apache.log4j.FileAppender',
    `log4j.appender.requests.File=${resolve(requestLog)}`,
    'log4j.appender.requests.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.requests.layout.ConversionPattern=%d{yyyy-MM-dd HH:mm:ss,SSS} %m%n',
  ];
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** Replaces the values of the given keys and appends keys the template lacks. */
function overrideProperties(template: string, overrides: Record<string, string>): string {
  const pending = new Map(Object.entries(overrides));
  const lines = template.split('\n').map((line) => {
    const key = /^\s*([^#!\s=:][^=:\s]*)\s*[=:]/.exec(line)?.[1];
    const value = key === undefined ? undefined : pending.get(key);
    if (key === undefined || value === undefined) return line;
    pending.delete(key);
    return `${key}=${value}`;
  });
  for (const [key, value] of pending) lines.push(`${key}=${value}`);
  return `# Generated by infra/devstack from infra/kafka/server.properties; edit that file instead.\n${lines.join('\n')}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`${name}=${raw} is not a TCP port`);
  return port;
}

function sortParts(names: PartName[]): string[] {
  return [...names].sort((a, b) => PART_ORDER.indexOf(a) - PART_ORDER.indexOf(b));
}
