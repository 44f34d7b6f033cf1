import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

// The image, the compose file and the Kubernetes manifests cannot run on our machines (no container
// engine, no cluster), so their agreement with the code and the deployment rules of ADR 0051 are
// checked here: each image runs a real service, every variable they set is one the code reads.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Variable names the processes' config schemas read (their upper-case keys). */
const configSources = ['packages/runtime/src/config.ts', 'packages/kafka/src/security.ts', 'packages/kafka/src/topicSettings.ts', 'services/conversations/src/config.ts', 'services/messages/src/config.ts', 'services/calls/src/config.ts', 'services/realtime/src/config.ts', 'services/management/src/config.ts', 'services/webhooks/src/config.ts', 'services/notifications/src/config.ts', 'gateway/src/config.ts'];
const knownVariables = new Set(configSources.flatMap((file) => [...read(file).matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1] as string)));

/** The services an image can be built for (Dockerfile SERVICE, infra/docker/assemble.sh). */
const platformServices = ['calls', 'conversations', 'gateway', 'management', 'messages', 'notifications', 'realtime', 'users', 'webhooks'];
const serviceDirectory = (service: string) => (service === 'gateway' ? 'gateway' : `services/${service}`);

/** The service an image reference runs (`chat-platform-users:0.1.0` runs users), if it is one of ours with a real entry point. */
function serviceOfImage(image: unknown): string | undefined {
  const match = /(?:^|\/)chat-platform-([a-z]+):([^:@]+)$/.exec(String(image));
  const service = match?.[1];
  return service !== undefined && existsSync(join(root, serviceDirectory(service), 'src/main.ts')) ? service : undefined;
}

interface ComposeService {
  build?: { args?: { SERVICE?: string } };
  image?: string;
  environment?: Record<string, unknown>;
  healthcheck?: { test?: unknown };
  depends_on?: unknown;
}

type Manifest = Record<string, any>;
let parsedManifests: Manifest[] | undefined;
/** The Kubernetes documents, parsed once (the tests only read them). */
const manifests = (): Manifest[] => (parsedManifests ??= parseAllDocuments(read('infra/k8s/chat-platform.yaml')).map((d) => d.toJS() as Manifest));
/** The Deployments and StatefulSets: one per platform service. */
const workloads = (): Manifest[] => manifests().filter((d) => d['kind'] === 'Deployment' || d['kind'] === 'StatefulSet');
const nameOf = (d: Manifest) => d['metadata']['name'] as string;
const podOf = (workload: Manifest) => workload['spec']['template']['spec'];
const containerOf = (workload: Manifest) => podOf(workload)['containers'][0];

/** Runs infra/k8s/secrets.sh with `env`, as a platform team would before applying the manifest. */
function generateSecrets(env: Record<string, string>): { status: number | null; stderr: string; secrets: Manifest[] } {
  const result = spawnSync('sh', [join(root, 'infra/k8s/secrets.sh')], { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8' });
  const secrets = result.status === 0 ? parseAllDocuments(result.stdout).map((d) => d.toJS() as Manifest).filter(Boolean) : [];
  return { status: result.status, stderr: result.stderr, secrets };
}
const connections = { MONGO_URL: "mongodb://chat:p'w@mongo-0.mongo:27017/?replicaSet=rs0", KAFKA_BROKERS: 'kafka-0.kafka:9092', REDIS_URL: 'redis://redis:6379' };

/** Docker engine answers here? (`docker info` exits 0 only when the daemon does.) */
function dockerEngineAnswersOnce(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

const dockerEngine = dockerEngineAnswersOnce();
if (!dockerEngine) console.log('[deploy manifests] image build test skipped: no Docker engine answers `docker info` on this machine');

describe('deployment manifests', () => {
  it('knows which variables the code reads', () => {
    expect(knownVariables).toContain('MONGO_URL');
    expect(knownVariables).toContain('CONVERSATIONS_URL');
  });

  it('compose: every platform service is its own image of the one Dockerfile, with variables the code reads', () => {
    const compose = parse(read('infra/compose/compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
    const platform = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
    expect(platform.map(([name]) => name).sort()).toEqual(platformServices);
    for (const [name, service] of platform) {
      expect(service.build?.args?.SERVICE, name).toBe(name);
      expect(serviceOfImage(service.image), name).toBe(name);
      for (const variable of Object.keys(service.environment ?? {})) expect(knownVariables, `${name}: ${variable}`).toContain(variable);
    }
  });

  it('compose: every container has a healthcheck (the platform\'s is the image\'s /readyz), and nothing starts before what it needs is healthy', () => {
    const compose = parse(read('infra/compose/compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.healthcheck, name).toBeDefined();
      // The platform's images carry their own HEALTHCHECK (checked below); compose only tunes its timing.
      if (service.build !== undefined) expect(service.healthcheck?.test, name).toBeUndefined();
      else expect(service.healthcheck?.test, name).toBeDefined();
      if (service.depends_on === undefined) continue;
      expect(Array.isArray(service.depends_on), `${name}: depends_on must name conditions`).toBe(false);
      for (const [needed, rule] of Object.entries(service.depends_on as Record<string, { condition?: string }>)) {
        expect(rule.condition, `${name} → ${needed}`).toBe('service_healthy');
      }
    }
  });

  it('kafka security: every backend may get the TLS and SASL settings and files, and the gateway needs none', () => {
    const compose = parse(read('infra/compose/compose.yaml'), { merge: true }) as { services: Record<string, ComposeService & { secrets?: string[] }> };
    const kafkaVariables = ['KAFKA_SSL', 'KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE', 'KAFKA_SSL_REJECT_UNAUTHORIZED', 'KAFKA_SASL_MECHANISM', 'KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'];
    const kafkaClients = Object.entries(compose.services).filter(([, s]) => s.build !== undefined && s.environment?.['KAFKA_BROKERS'] !== undefined);
    expect(kafkaClients.map(([name]) => name).sort()).toEqual(['calls', 'conversations', 'management', 'messages', 'notifications', 'realtime', 'users', 'webhooks']);
    for (const [name, service] of kafkaClients) {
      expect(Object.keys(service.environment ?? {}), name).toEqual(expect.arrayContaining(kafkaVariables));
      expect(service.secrets, name).toEqual(['kafka_ca', 'kafka_cert', 'kafka_key']);
    }
    for (const deployment of workloads()) {
      const pod = deployment['spec']['template']['spec'];
      const optionalSecret = (pod['containers'][0].envFrom as Array<{ secretRef?: { name: string; optional?: boolean } }>).find((e) => e.secretRef?.name === 'chat-platform-kafka');
      if (deployment['metadata']['name'] === 'gateway') {
        expect(optionalSecret).toBeUndefined();
        continue;
      }
      expect(optionalSecret?.secretRef?.optional, deployment['metadata']['name']).toBe(true);
      expect(pod['volumes'], deployment['metadata']['name']).toContainEqual({ name: 'kafka-tls', secret: { secretName: 'chat-platform-kafka-tls', optional: true } });
    }
    for (const variable of kafkaVariables) expect(knownVariables, variable).toContain(variable);
  });

  it('kubernetes: one workload per service, each running its pinned image with variables the code reads', () => {
    const documents = manifests();
    const configMap = documents.find((d) => d['kind'] === 'ConfigMap');
    for (const variable of Object.keys(configMap?.['data'] ?? {})) expect(knownVariables, variable).toContain(variable);
    expect(workloads().map(nameOf).sort()).toEqual(platformServices);
    for (const workload of workloads()) {
      const name = nameOf(workload);
      const container = containerOf(workload);
      // A tag that names one build: never latest, never none (which means latest).
      expect(serviceOfImage(container.image), `${name}: ${container.image}`).toBe(name);
      expect(String(container.image), name).not.toMatch(/:latest$/);
      expect(container.command, `${name}: the image's CMD runs its service`).toBeUndefined();
      for (const { name: variable } of container.env as Array<{ name: string }>) expect(knownVariables, `${name}: ${variable}`).toContain(variable);
      // Restart on a dead process (/healthz), take out of rotation when it cannot work (/readyz).
      expect(container.livenessProbe?.httpGet?.path, name).toBe('/healthz');
      expect(container.readinessProbe?.httpGet?.path, name).toBe('/readyz');
      expect(documents.filter((d) => d['kind'] === 'Service' && nameOf(d) === name), name).toHaveLength(1);
    }
  });

  it('kubernetes: every pod runs unprivileged on a read-only root, and drains before it stops', () => {
    for (const workload of workloads()) {
      const name = nameOf(workload);
      const pod = podOf(workload);
      const container = containerOf(workload);
      const runAs = { ...pod.securityContext, ...container.securityContext };
      expect(runAs.runAsNonRoot, name).toBe(true);
      expect(runAs.runAsUser, name).toBeGreaterThan(0);
      expect(container.securityContext?.readOnlyRootFilesystem, name).toBe(true);
      expect(container.securityContext?.allowPrivilegeEscalation, name).toBe(false);
      expect(container.securityContext?.capabilities?.drop, name).toEqual(['ALL']);
      expect(container.securityContext?.privileged, name).not.toBe(true);
      // /tmp stays writable for diagnostics (heap snapshots, profiles) on a volume of its own.
      const tmp = (container.volumeMounts as Array<{ name: string; mountPath: string }>).find((m) => m.mountPath === '/tmp');
      expect((pod.volumes as Array<{ name: string; emptyDir?: unknown }>).find((v) => v.name === tmp?.name)?.emptyDir, name).toBeDefined();
      // preStop waits while endpoints and the gateway stop sending here, well inside the grace period.
      const preStop = container.lifecycle?.preStop?.exec?.command as string[] | undefined;
      expect(preStop?.[0], name).toBe('sleep');
      expect(Number(preStop?.[1])).toBeGreaterThanOrEqual(3);
      expect(Number(preStop?.[1]) + 10, name).toBeLessThanOrEqual(pod.terminationGracePeriodSeconds);
    }
  });

  it('kubernetes: a PodDisruptionBudget per workload that a drain can still satisfy', () => {
    const budgets = manifests().filter((d) => d['kind'] === 'PodDisruptionBudget');
    for (const workload of workloads()) {
      const name = nameOf(workload);
      const labels = workload['spec']['template']['metadata']['labels'] as Record<string, string>;
      const mine = budgets.filter((b) => Object.entries(b['spec']['selector']['matchLabels'] as Record<string, string>).every(([k, v]) => labels[k] === v));
      expect(mine, name).toHaveLength(1);
      const budget = mine[0]!['spec'];
      const replicas = workload['spec']['replicas'] as number;
      // At least one pod may always go (else a one-replica service blocks every node drain).
      const mayGo = budget.maxUnavailable ?? replicas - budget.minAvailable;
      expect(mayGo, name).toBeGreaterThanOrEqual(1);
      if (replicas > 1) expect(mayGo, name).toBeLessThan(replicas);
    }
  });

  it('kubernetes: the gateway names every replica of each service through a headless Service (ADR 0036)', () => {
    const documents = manifests();
    const gateway = workloads().find((w) => nameOf(w) === 'gateway')!;
    const env = Object.fromEntries((containerOf(gateway).env as Array<{ name: string; value?: string }>).map((e) => [e.name, e.value]));
    for (const backend of workloads().filter((w) => nameOf(w) !== 'gateway')) {
      const name = nameOf(backend);
      // Stable replica names (name-0, name-1, …) exist for StatefulSets, through the Service they name.
      expect(backend['kind'], name).toBe('StatefulSet');
      const service = documents.find((d) => d['kind'] === 'Service' && nameOf(d) === backend['spec']['serviceName']);
      expect(service?.['spec']['clusterIP'], name).toBe('None');
      expect(service?.['spec']['publishNotReadyAddresses'], name).toBe(true);
      const port = (service?.['spec']['ports'] as Array<{ port: number }>)[0]!.port;
      const replicas = Array.from({ length: backend['spec']['replicas'] as number }, (_, i) => `http://${name}-${i}.${service?.['metadata']['name']}:${port}`);
      expect(env[`${name.toUpperCase()}_URL`]?.split(','), name).toEqual(replicas);
      expect(containerOf(backend).ports[0].containerPort, name).toBe(port);
    }
  });

  it('kubernetes: only the gateway reaches the services, conversations reaches messages (time-travel reads, ADR 0033) and messages calls (ADR 0064)', () => {
    const documents = manifests();
    const policies = documents.filter((d) => d['kind'] === 'NetworkPolicy');
    const labelsOf = (name: string) => workloads().find((w) => nameOf(w) === name)!['spec']['template']['metadata']['labels'] as Record<string, string>;
    const selects = (selector: Manifest, labels: Record<string, string>) =>
      Object.entries((selector['matchLabels'] ?? {}) as Record<string, string>).every(([k, v]) => labels[k] === v) &&
      ((selector['matchExpressions'] ?? []) as Array<{ key: string; operator: string; values: string[] }>).every((e) => e.operator === 'In' && e.values.includes(labels[e.key] ?? ''));
    /** The pods of this namespace a workload's pods take traffic from on `port`, by the policies that select them. */
    const sourcesOf = (name: string, port: number) => {
      const mine = policies.filter((p) => selects(p['spec']['podSelector'], labelsOf(name)));
      expect(mine.length, `${name} is guarded by a policy`).toBeGreaterThan(0);
      const rules = mine.flatMap((p) => p['spec']['ingress'] as Array<{ from?: Manifest[]; ports?: Array<{ port: number }> }>);
      return platformServices.filter((source) =>
        rules.some((rule) => (rule.ports === undefined || rule.ports.some((p) => p.port === port)) && (rule.from === undefined || rule.from.some((peer) => peer['podSelector'] && selects(peer['podSelector'], labelsOf(source))))),
      );
    };
    for (const backend of workloads().filter((w) => nameOf(w) !== 'gateway')) {
      const name = nameOf(backend);
      const port = containerOf(backend).ports[0].containerPort as number;
      const callers: Record<string, string[]> = { messages: ['conversations', 'gateway'], calls: ['gateway', 'messages'] };
      expect(sourcesOf(name, port), name).toEqual(callers[name] ?? ['gateway']);
    }
    const conversations = workloads().find((w) => nameOf(w) === 'conversations')!;
    const messagesUrl = (containerOf(conversations).env as Array<{ name: string; value: string }>).find((e) => e.name === 'MESSAGES_URL')?.value;
    expect(messagesUrl).toMatch(/^http:\/\/messages-0\.messages:3103/);
    const messages = workloads().find((w) => nameOf(w) === 'messages')!;
    const callsUrl = (containerOf(messages).env as Array<{ name: string; value: string }>).find((e) => e.name === 'CALLS_URL')?.value;
    expect(callsUrl).toMatch(/^http:\/\/calls-0\.calls:3107/);
  });

  it('kubernetes: the Ingress serves DOMAIN\'s hosts over TLS through a named class', () => {
    const documents = manifests();
    const config = documents.find((d) => d['kind'] === 'ConfigMap')?.['data'] as Record<string, string>;
    const ingress = documents.find((d) => d['kind'] === 'Ingress')!;
    const hosts = (ingress['spec']['rules'] as Array<{ host: string }>).map((rule) => rule.host);
    expect(hosts).toEqual([`*.api-${config['REGION']}.${config['DOMAIN']}`, `*.call-${config['REGION']}.${config['DOMAIN']}`, `apimgmt.${config['DOMAIN']}`]);
    expect(ingress['spec']['ingressClassName']).toMatch(/^[a-z0-9-]+$/);
    const tls = ingress['spec']['tls'] as Array<{ hosts: string[]; secretName: string }>;
    expect(tls.flatMap((t) => t.hosts).sort()).toEqual([...hosts].sort());
    for (const entry of tls) expect(entry.secretName).toBeTruthy();
  });

  it('kubernetes: topics replicated across the brokers and kept for good; addresses and secrets only in Secrets', () => {
    const documents = manifests();
    const config = documents.find((d) => d['kind'] === 'ConfigMap')?.['data'] as Record<string, string>;
    expect(Number(config['KAFKA_REPLICATION_FACTOR'])).toBeGreaterThanOrEqual(3);
    expect(Number(config['KAFKA_PARTITIONS'])).toBeGreaterThanOrEqual(3);
    expect(config['KAFKA_TOPIC_RETENTION_MS']).toBe('-1');
    // Addresses may carry credentials; keys and passwords are secrets.
    for (const variable of Object.keys(config)) expect(variable, 'belongs in a Secret').not.toMatch(/_URL$|BROKERS|KEY|SECRET|PASSWORD|TOKEN/);
    // No Secret with a value is shipped: a value written here would be the same in every deployment.
    expect(documents.filter((d) => d['kind'] === 'Secret')).toEqual([]);
    expect(read('infra/k8s/chat-platform.yaml')).not.toMatch(/replace-?me|changeme/i);
    for (const workload of workloads()) {
      for (const entry of ((containerOf(workload).env ?? []) as Array<{ name: string; value?: string }>).filter((e) => e.value !== undefined)) {
        expect(entry.name, `${nameOf(workload)}: ${entry.name} belongs in a Secret`).not.toMatch(/KEY|SECRET|PASSWORD|MONGO_URL|REDIS_URL|KAFKA_BROKERS/);
      }
    }
  });

  it('kubernetes: secrets.sh makes every Secret the workloads need, with fresh keys, and refuses without the addresses', () => {
    const first = generateSecrets(connections);
    expect(first.status, first.stderr).toBe(0);
    const byName = new Map(first.secrets.map((s) => [nameOf(s), s['stringData'] as Record<string, string>]));
    expect(first.secrets.every((s) => s['metadata']['namespace'] === 'chat-platform' && s['kind'] === 'Secret')).toBe(true);
    // Every Secret a workload needs (not the optional Kafka ones) is made, and holds what the code reads.
    for (const workload of workloads()) {
      const container = containerOf(workload);
      const required = [
        ...((container.envFrom ?? []) as Array<{ secretRef?: { name: string; optional?: boolean } }>).filter((e) => e.secretRef && !e.secretRef.optional).map((e) => e.secretRef!.name),
        ...((container.env ?? []) as Array<{ valueFrom?: { secretKeyRef?: { name: string; key: string } } }>).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.name] : [])),
      ];
      for (const name of required) expect([...byName.keys()], `${nameOf(workload)} needs ${name}`).toContain(name);
    }
    for (const [, data] of byName) for (const variable of Object.keys(data)) expect(knownVariables, variable).toContain(variable);
    expect(byName.get('chat-platform-connections')).toEqual(connections);
    const keys = [...byName.values()].flatMap((data) => Object.entries(data).filter(([name]) => /KEY|SECRET$/.test(name)).map(([, value]) => value));
    expect(keys).toHaveLength(5);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
    // Drawn afresh: no two alike, none repeated by a second run.
    const second = generateSecrets(connections).secrets.flatMap((s) => Object.values(s['stringData'] as Record<string, string>));
    expect(new Set([...keys, ...second.filter((v) => /^[0-9a-f]{64}$/.test(v))]).size).toBe(10);

    const missing = generateSecrets({ MONGO_URL: connections.MONGO_URL, KAFKA_BROKERS: connections.KAFKA_BROKERS });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('REDIS_URL');
  });

  it('image: current Node LTS, production dependencies only, non-root, with a HEALTHCHECK on /readyz', () => {
    const dockerfile = read('Dockerfile');
    const instructions = dockerfile.split('\n').filter((line) => /^[A-Z]+\s/.test(line));
    const froms = instructions.filter((line) => line.startsWith('FROM'));
    // Node 26 is the Active LTS line from October 2026; 20 ended in April 2026. The image runs the line
    // development, tests and benchmarks run on (`.node-version`, ADR 0135), and `engines` names it.
    const nodeVersion = read('.node-version').trim();
    const major = nodeVersion.split('.')[0];
    expect(major).toBe('26');
    expect(dockerfile).toMatch(new RegExp(`^ARG NODE_IMAGE=node:${major}-[a-z]+-slim$`, 'm'));
    // Every stage starts from that image or from an earlier stage.
    for (const from of froms) expect(from).toMatch(/^FROM (\$\{NODE_IMAGE\}|build)( AS [a-z]+)?$/);
    expect(froms.at(-1)).toBe('FROM ${NODE_IMAGE}');
    expect(JSON.parse(read('package.json')).engines.node).toBe(`>=${nodeVersion.split('.').slice(0, 2).join('.')}`);
    // The last stage is what ships: it copies the assembled service tree only, and runs as a user by number.
    const final = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(final).toMatch(/^COPY --from=prune \/out \/app$/m);
    expect(final.match(/^COPY /gm)).toHaveLength(1);
    const user = /^USER (\d+)(?::(\d+))?$/m.exec(final);
    expect(Number(user?.[1])).toBeGreaterThan(0);
    expect(final).toMatch(/^HEALTHCHECK .*CMD \["node", "\/app\/healthcheck\.mjs"\]$/m);
    expect(read('infra/docker/healthcheck.mjs')).toContain('/readyz');
    expect(final).toMatch(/^CMD \["node", "\/app\/main\.mjs"\]$/m);
    // The assembly installs the chosen service's production closure only, and knows every service.
    const assemble = read('infra/docker/assemble.sh');
    expect(assemble).toMatch(/install --frozen-lockfile --prod .*--filter "@chat\/\$service\.\.\."/);
    for (const service of platformServices) expect(assemble, service).toMatch(new RegExp(`^  ${service}\\) dir=${serviceDirectory(service)}; port=\\d+ ;;$`, 'm'));
    // What the build context leaves out: built output and modules of this machine, local data, secrets.
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['**/node_modules', '**/dist', '.git', '.infra', '**/.env']) expect(ignored, entry).toContain(entry);
  });

  // Reads the whole lockfile: slow on a busy machine.
  it('image: no test tooling in any service\'s production closure (testcontainers, vitest, autocannon)', { timeout: 30_000 }, () => {
    const lock = parse(read('pnpm-lock.yaml')) as { importers: Record<string, { dependencies?: Record<string, unknown> }> };
    const banned = /^(vitest|@vitest\/|testcontainers|@testcontainers\/|autocannon|typescript$|eslint|fast-check)/;
    // The workspace packages each service's image holds: the service and its workspace dependencies.
    const importerOf = (name: string) => Object.keys(lock.importers).find((dir) => dir !== '.' && JSON.parse(read(join(dir, 'package.json'))).name === name);
    for (const service of platformServices) {
      const seen = new Set<string>();
      const visit = (name: string) => {
        if (seen.has(name)) return;
        seen.add(name);
        const dependencies = Object.keys(lock.importers[importerOf(name)!]?.dependencies ?? {});
        for (const dependency of dependencies) {
          expect(dependency, `${service} ships ${dependency} through ${name}`).not.toMatch(banned);
          if (dependency.startsWith('@chat/')) visit(dependency);
        }
      };
      visit(`@chat/${service}`);
      expect(seen.has('@chat/devstack'), service).toBe(false);
    }
  });

  // Built whenever a Docker engine answers (minutes); otherwise the static checks above stand alone.
  it.skipIf(!dockerEngine)('image: builds, runs as non-root and holds no test tooling (needs a Docker engine)', { timeout: 1_800_000 }, () => {
    const tag = 'chat-platform-users:test';
    execFileSync('docker', ['build', '--build-arg', 'SERVICE=users', '-t', tag, root], { stdio: 'inherit', timeout: 1_800_000 });
    const inspect = JSON.parse(execFileSync('docker', ['image', 'inspect', tag], { encoding: 'utf8' }))[0];
    expect(inspect.Config.User).toBe('1000:1000');
    expect(inspect.Config.Healthcheck.Test).toEqual(['CMD', 'node', '/app/healthcheck.mjs']);
    const listing = execFileSync('docker', ['run', '--rm', '--entrypoint', 'sh', tag, '-c', 'id -u; ls /app/node_modules/.pnpm'], { encoding: 'utf8' });
    expect(listing.split('\n')[0]).toBe('1000');
    expect(listing).not.toMatch(/testcontainers|vitest|autocannon|typescript@|re2@/);
  });

  it('compose: .env.example names every variable compose reads, each under a comment, and ships no secret', () => {
    const readByCompose = new Set([...read('infra/compose/compose.yaml').matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1] as string));
    const lines = read('infra/compose/.env.example').split('\n');
    const assignment = (line: string) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    const given = new Map<string, string>();
    lines.forEach((line, index) => {
      const match = assignment(line);
      if (!match) return;
      given.set(match[1] as string, match[2] as string);
      expect(readByCompose, `${match[1]} is not read by compose.yaml`).toContain(match[1]);
      // Directly under a comment, or under the variables of a block that starts with one.
      let above = index - 1;
      while (above >= 0 && assignment(lines[above] ?? '')) above -= 1;
      expect(lines[above] ?? '', `${match[1]} has no comment`).toMatch(/^#/);
      if (/(KEY|SECRET|PASSWORD)$/.test(match[1] as string)) expect(match[2], `${match[1]} ships empty`).toBe('');
    });
    expect([...readByCompose].filter((name) => !given.has(name))).toEqual([]);
  });
});
