// What every benchmark sets up the same way: Kafka, FerretDB and Redis (@chat/devstack's
// startInfrastructure: spawned, or reused where one already answers), the services and the gateway on
// ephemeral ports with databases of their own, one stop for all of it that also runs on Ctrl-C, on a
// failure and when the event loop drains, a JSON helper for the gateway's API, and bench apps with a
// fullAccess key. Each benchmark keeps only what it measures.
import { randomBytes } from 'node:crypto';
import { registerShutdown, startInfrastructure, startServices } from '@chat/devstack';

const API_TIMEOUT_MS = 30_000;

/**
 * @typedef {object} BenchApp
 * @property {string} appId
 * @property {string} apiKey  the app's fullAccess key
 * @property {{ appid: string, apikey: string }} chat  the headers of a chat API call
 */

/**
 * @typedef {object} BenchStack
 * @property {import('@chat/devstack').RunningInfrastructure} infra
 * @property {import('@chat/devstack').RunningServices} services
 * @property {string} databaseSuffix  each service's database is `chat_<service>_<databaseSuffix>`
 * @property {(method: string, path: string, options?: { headers?: Record<string, string>, body?: unknown }) => Promise<any>} api
 *   one JSON request to the gateway; resolves with the parsed body, throws on a non-2xx answer and after 30 s
 * @property {(name: string) => Promise<BenchApp>} createApp  a new app through the management API
 * @property {BenchApp | undefined} app  the app created at start when `name` was given
 * @property {(fn: () => unknown) => void} onStop
 *   adds a clean-up step (close a client, end a helper process) that stop() runs, newest first,
 *   before it stops the services and the infrastructure; a step that throws is reported, not fatal
 * @property {() => Promise<void>} stop  stops all of it, once however often it is called
 */

/**
 * Gateway settings that lift the app's per-minute request limits (by default 20,000 standard and 10,000 core
 * by default): a bench that measures cost or speed must not be cut short by a tenant's limit, which a
 * sustained phase at 600+ sends/s followed by open loops within the same minute would reach.
 */
export const UNLIMITED_RATES = { RATE_LIMIT_STANDARD_PER_MINUTE: '1000000000', RATE_LIMIT_CORE_PER_MINUTE: '1000000000' };

/**
 * Starts the stack a benchmark runs against. Its stop is registered with registerShutdown before
 * anything starts, so nothing started here or handed to onStop outlives the benchmark, whether it
 * ends, fails or is interrupted.
 *
 * @param {object} [options]
 * @param {string} [options.name]  when given, an app of this name is created: `app`
 * @param {boolean} [options.freshKafkaData]  a Kafka this call spawns starts on an empty log, so the
 *   services have nothing to catch up on but what the benchmark sends (default true; no effect on a
 *   Kafka that is reused)
 * @param {Record<string, string>} [options.extraEnv]  settings for every service, e.g. the webhooks
 *   benchmark's `TENANT_URLS_ALLOW_PRIVATE` for receivers on loopback
 * @returns {Promise<BenchStack>}
 */
export async function startBenchStack({ name, freshKafkaData = true, extraEnv = {} } = {}) {
  const cleanups = [];
  /** @type {import('@chat/devstack').RunningInfrastructure | undefined} */
  let infra;
  /** @type {import('@chat/devstack').RunningServices | undefined} */
  let services;
  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      for (const cleanup of [...cleanups].reverse()) {
        try {
          await cleanup();
        } catch (error) {
          console.error('bench: a clean-up step failed:', error);
        }
      }
      await services?.stop();
      await infra?.stop();
    })());
  // Interrupted while starting, this stop has nothing yet; registerShutdown then stops whatever the
  // devstack has spawned so far all the same.
  registerShutdown(stop);

  const databaseSuffix = `bench${randomBytes(3).toString('hex')}`;
  infra = await startInfrastructure({ freshKafkaData });
  services = await startServices({ ...infra, ports: 'ephemeral', databaseSuffix, extraEnv: { LOG_LEVEL: 'warn', ...extraEnv } });
  const gatewayUrl = services.gatewayUrl;
  const { managementKey, managementSecret } = services;

  async function api(method, path, { headers = {}, body } = {}) {
    const response = await fetch(`${gatewayUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body ? { body: JSON.stringify(body) } : {}),
      // A stalled stack fails the benchmark's set-up instead of hanging it.
      signal: AbortSignal.timeout(API_TIMEOUT_MS),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  }

  async function createApp(appName) {
    const created = await api('POST', '/apps', {
      headers: { key: managementKey, secret: managementSecret },
      body: { name: appName, region: 'us' },
    });
    const appId = created.data.id;
    const apiKey = Object.values(created.data.apiKeys).find((k) => k.scope === 'fullAccess').apiKey;
    return { appId, apiKey, chat: { appid: appId, apikey: apiKey } };
  }

  return {
    infra,
    services,
    databaseSuffix,
    api,
    createApp,
    app: name === undefined ? undefined : await createApp(name),
    onStop: (fn) => void cleanups.push(fn),
    stop,
  };
}

/**
 * Runs a benchmark on its stack and exits: the stack stops whatever happens, a failure is printed with
 * its stack trace and exits 1 (every benchmark ends the same way). `failedInPart` says whether a run
 * that went to its end still left a figure unmeasured (exit 1 too).
 */
export async function runBenchOn(stack, run, failedInPart = () => false) {
  let exitCode = 0;
  try {
    await run();
    if (failedInPart()) exitCode = 1;
  } catch (error) {
    exitCode = 1;
    console.log(`\nthe benchmark failed: ${error instanceof Error ? error.stack : String(error)}`);
  } finally {
    await stack.stop();
  }
  process.exit(exitCode);
}

// Benchmarks import the percentile from here too; there is one definition (percentile.mjs).
export { percentile } from './percentile.mjs';
