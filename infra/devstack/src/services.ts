import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { serviceNode } from './nodeRuntime.js';
import { unusedPort } from './ports.js';
import { spawnManaged } from './processes.js';
import type { ManagedProcess } from './processes.js';

export interface ServiceStackOptions {
  kafkaBrokers: string;
  mongoUrl: string;
  redisUrl: string;
  repoRoot?: string;
  /** `fixed`: the documented ports (gateway GATEWAY_PORT or 3000, services 3101–3107); `ephemeral`: free ports, for tests. */
  ports?: 'fixed' | 'ephemeral';
  gatewayPort?: number;
  managementKey?: string;
  managementSecret?: string;
  /** Suffix of each service's database name, so a test run never sees a previous run's data. */
  databaseSuffix?: string;
  log?: (line: string) => void;
  extraEnv?: Record<string, string>;
  /**
   * Processes per backend service (default: the REPLICAS environment variable, else 1). Replicas of a
   * service share its database and consumer group; the gateway balances requests across them.
   */
  replicas?: number;
}

/** One process of a backend service: replica 1 is the first. */
export interface ServiceInstance {
  service: BackendName;
  replica: number;
  url: string;
  pid(): number;
  /** Sends a signal (SIGKILL: a crash) and waits until the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the same replica again, on the same port and settings, and waits until it is healthy. */
  restart(): Promise<void>;
}

export interface RunningServices {
  gatewayUrl: string;
  /** The first replica of each service. */
  serviceUrls: Record<BackendName, string>;
  /** Every replica of every service, to stop, kill or restart one (fault tests). */
  instances: readonly ServiceInstance[];
  managementKey: string;
  managementSecret: string;
  logDir: string;
  stop(): Promise<void>;
}

const backends = ['users', 'conversations', 'messages', 'calls', 'realtime', 'management', 'webhooks', 'notifications'] as const;
export type BackendName = (typeof backends)[number];
/** Fixed ports of replica n > 1: the first replica's port plus 100·(n−1) (3101, 3201, …). */
const FIXED_REPLICA_STRIDE = 100;

export function replicasFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env['REPLICAS'] ?? 1);
  if (!Number.isInteger(value) || value < 1 || value > 8) throw new Error(`REPLICAS must be an integer from 1 to 8, not ${env['REPLICAS']}`);
  return value;
}
const fixedPorts: Record<BackendName, number> = { users: 3101, conversations: 3102, messages: 3103, management: 3104, webhooks: 3105, notifications: 3106, calls: 3107, realtime: 3108 };
/** The services that seal (management) and open (webhooks) webhook secrets share one key. */
const SECRET_HOLDERS: ReadonlySet<BackendName> = new Set(['management', 'webhooks']);

/**
 * The webhook secrets key of this checkout: kept in `.infra/` so secrets sealed by an earlier
 * `npm start` still open after a restart; `WEBHOOK_SECRETS_KEY` in the environment wins.
 */
async function webhookSecretsKey(root: string): Promise<string> {
  if (process.env['WEBHOOK_SECRETS_KEY']) return process.env['WEBHOOK_SECRETS_KEY'];
  const file = join(root, '.infra', 'webhook-secrets.key');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const key = randomBytes(32).toString('hex');
    await writeFile(file, key, { mode: 0o600 });
    return key;
  }
}
const READY_TIMEOUT_MS = 60_000;

async function waitHealthy(name: string, url: string, process: ManagedProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (process.hasExited()) throw new Error(`${name} exited during start-up; see ${logFile}`);
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${name} did not become healthy within ${READY_TIMEOUT_MS / 1000} s; see ${logFile}`);
}

/**
 * Starts the backend services and then the gateway, each as its own `node` process running
 * the compiled JavaScript, and waits until each answers its health check.
 */
export async function startServices(options: ServiceStackOptions): Promise<RunningServices> {
  const root = resolve(options.repoRoot ?? fileURLToPath(new URL('../../../', import.meta.url)));
  const log = options.log ?? ((line: string) => process.stderr.write(`[stack] ${line}\n`));
  const logDir = join(root, '.infra', 'logs');
  const runDir = join(root, '.infra', 'run');
  await mkdir(logDir, { recursive: true });
  await mkdir(runDir, { recursive: true });

  const ephemeral = options.ports === 'ephemeral';
  // Random and well past the gateway's 32-character minimum (it refuses to start below it; ADR 0040).
  const managementKey = options.managementKey ?? randomBytes(24).toString('hex');
  const managementSecret = options.managementSecret ?? randomBytes(32).toString('hex');
  const suffix = options.databaseSuffix ? `_${options.databaseSuffix}` : '';
  const started: ManagedProcess[] = [];
  const secretsKey = await webhookSecretsKey(root);

  const replicas = options.replicas ?? replicasFromEnv();
  const stop = async () => {
    // Gateway first, so nothing new reaches a backend that is going away (restarted replicas come after it in `started`).
    const gatewayFirst = [...started].reverse().sort((a, b) => Number(b.name === 'gateway') - Number(a.name === 'gateway'));
    for (const process of gatewayFirst) await process.stop();
  };

  const launch = async (name: string, entry: string, port: number, env: Record<string, string>) => {
    const logFile = join(logDir, `${name}${ephemeral ? '-test' : ''}.log`);
    const managed = await spawnManaged({
      name,
      file: serviceNode(root),
      // `npm run dev` (DEV_WATCH=1): node restarts the process when a module it loaded is rebuilt.
      // SERVICE_NODE_ARGS: extra node options for every service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
      // to profile them (node refuses `--cpu-prof` in NODE_OPTIONS).
      args: ['--enable-source-maps', ...(process.env['DEV_WATCH'] === '1' ? ['--watch'] : []), ...nodeArgsFromEnv(), entry],
      cwd: root,
      logFile,
      pidFile: join(runDir, `${name}${ephemeral ? `-${port}` : ''}.pid`),
      stopGraceMs: 10_000,
      env: { ...process.env, ...options.extraEnv, ...env, PORT: String(port) },
      onUnexpectedExit: (detail) => log(`${name} exited unexpectedly (${detail}); see ${logFile}`),
    });
    started.push(managed);
    return { managed, logFile, url: `http://127.0.0.1:${port}` };
  };

  /** One replica of a backend, which a fault test may kill and start again in place. */
  // Every replica's port is chosen before any starts: the conversations service is told the messages
  // service's replicas (time-travel reads ask it for a conversation's message stream, ADR 0033), and
  // the messages service the calls service's (`GET /stats` asks it for the call figures, ADR 0064), and
  // realtime the users service's (whether a typing notice's receiver exists, ADR 0101).
  const ports = new Map<BackendName, number[]>();
  for (const service of backends) {
    const list: number[] = [];
    for (let replica = 1; replica <= replicas; replica++) list.push(ephemeral ? await unusedPort() : fixedPorts[service] + FIXED_REPLICA_STRIDE * (replica - 1));
    ports.set(service, list);
  }
  const messagesUrls = ports.get('messages')!.map((port) => `http://127.0.0.1:${port}`).join(',');
  const callsUrls = ports.get('calls')!.map((port) => `http://127.0.0.1:${port}`).join(',');
  const usersUrls = ports.get('users')!.map((port) => `http://127.0.0.1:${port}`).join(',');

  const startInstance = async (service: BackendName, replica: number): Promise<ServiceInstance> => {
    const port = ports.get(service)![replica - 1]!;
    const name = replicas > 1 ? `${service}-${replica}` : service;
    const entry = join(root, 'services', service, 'dist', 'main.js');
    const env = {
      ...(service === 'conversations' ? { MESSAGES_URL: messagesUrls } : {}),
      ...(service === 'messages' ? { CALLS_URL: callsUrls } : {}),
      ...(service === 'realtime' || service === 'notifications' ? { USERS_URL: usersUrls } : {}),
      MONGO_URL: options.mongoUrl,
      MONGO_DB: `chat_${service}${suffix}`,
      KAFKA_BROKERS: options.kafkaBrokers,
      REDIS_URL: options.redisUrl,
      ...(SECRET_HOLDERS.has(service) ? { WEBHOOK_SECRETS_KEY: secretsKey } : {}),
      // Notification provider credentials and agent headers are sealed with the same mechanism and the same stored key.
      ...(service === 'notifications' ? { NOTIFICATIONS_SECRETS_KEY: secretsKey } : {}),
      ...(service === 'messages' ? { MESSAGES_SECRETS_KEY: secretsKey } : {}),
    };
    const first = await launch(name, entry, port, env);
    await waitHealthy(name, first.url, first.managed, first.logFile);
    let current = first.managed;
    return {
      service,
      replica,
      url: first.url,
      pid: () => current.pid,
      async kill(signal = 'SIGKILL') {
        if (signal === 'SIGTERM') return current.stop();
        current.signal(signal);
        await current.exited;
      },
      async restart() {
        if (!current.hasExited()) await current.stop();
        const again = await launch(name, entry, port, env);
        current = again.managed;
        await waitHealthy(name, again.url, again.managed, again.logFile);
      },
    };
  };

  try {
    const instances = (
      await Promise.all(
        backends.flatMap((service) =>
          Array.from({ length: replicas }, async (_, index) => {
            const instance = await startInstance(service, index + 1);
            log(`${service}${replicas > 1 ? ` replica ${index + 1}` : ''} ready at ${instance.url}`);
            return instance;
          }),
        ),
      )
    ).sort((a, b) => a.service.localeCompare(b.service) || a.replica - b.replica);
    const urlsOf = (service: BackendName) => instances.filter((i) => i.service === service).map((i) => i.url);
    const serviceUrls = Object.fromEntries(backends.map((service) => [service, urlsOf(service)[0]!])) as Record<BackendName, string>;
    const gatewayPort = ephemeral ? await unusedPort() : (options.gatewayPort ?? 3000);
    const gateway = await launch('gateway', join(root, 'gateway', 'dist', 'main.js'), gatewayPort, {
      GATEWAY_PORT: String(gatewayPort),
      REDIS_URL: options.redisUrl,
      USERS_URL: urlsOf('users').join(','),
      CONVERSATIONS_URL: urlsOf('conversations').join(','),
      MESSAGES_URL: urlsOf('messages').join(','),
      CALLS_URL: urlsOf('calls').join(','),
      REALTIME_URL: urlsOf('realtime').join(','),
      MANAGEMENT_URL: urlsOf('management').join(','),
      WEBHOOKS_URL: urlsOf('webhooks').join(','),
      NOTIFICATIONS_URL: urlsOf('notifications').join(','),
      MANAGEMENT_KEY: managementKey,
      MANAGEMENT_SECRET: managementSecret,
    });
    await waitHealthy('gateway', gateway.url, gateway.managed, gateway.logFile);
    log(`gateway ready at ${gateway.url}`);
    return { gatewayUrl: gateway.url, serviceUrls, instances, managementKey, managementSecret, logDir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface ExtraGatewayOptions {
  serviceUrls: Record<BackendName, string>;
  redisUrl: string;
  managementKey: string;
  managementSecret: string;
  /** Gateway settings that differ from the stack's, e.g. `RATE_LIMIT_APP_OVERRIDES`. */
  env: Record<string, string>;
  repoRoot?: string;
}

/**
 * One more gateway, on a free port, in front of services that already run (sharing their Redis), with
 * its own settings: how a test or a benchmark gives one app a tiny rate limit without touching the
 * stack's own gateway. The caller stops it.
 */
export async function startExtraGateway(options: ExtraGatewayOptions): Promise<{ url: string; logFile: string; stop(): Promise<void> }> {
  const root = resolve(options.repoRoot ?? fileURLToPath(new URL('../../../', import.meta.url)));
  const port = await unusedPort();
  const logFile = join(root, '.infra', 'logs', `gateway-extra-${port}.log`);
  await mkdir(join(root, '.infra', 'run'), { recursive: true });
  await mkdir(join(root, '.infra', 'logs'), { recursive: true });
  const managed = await spawnManaged({
    name: `gateway-${port}`,
    file: serviceNode(root),
    args: ['--enable-source-maps', join(root, 'gateway', 'dist', 'main.js')],
    cwd: root,
    logFile,
    pidFile: join(root, '.infra', 'run', `gateway-extra-${port}.pid`),
    stopGraceMs: 10_000,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      GATEWAY_PORT: String(port),
      REDIS_URL: options.redisUrl,
      USERS_URL: options.serviceUrls.users,
      CONVERSATIONS_URL: options.serviceUrls.conversations,
      MESSAGES_URL: options.serviceUrls.messages,
      CALLS_URL: options.serviceUrls.calls,
      REALTIME_URL: options.serviceUrls.realtime,
      MANAGEMENT_URL: options.serviceUrls.management,
      WEBHOOKS_URL: options.serviceUrls.webhooks,
      NOTIFICATIONS_URL: options.serviceUrls.notifications,
      MANAGEMENT_KEY: options.managementKey,
      MANAGEMENT_SECRET: options.managementSecret,
      ...options.env,
    },
    onUnexpectedExit: () => undefined,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy('extra gateway', url, managed, logFile);
  } catch (error) {
    await managed.stop();
    throw error;
  }
  return { url, logFile, stop: () => managed.stop() };
}

function nodeArgsFromEnv(): string[] {
  return (process.env['SERVICE_NODE_ARGS'] ?? '').split(/\s+/).filter((arg) => arg.length > 0);
}
