import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

// The compose file and Kubernetes manifests cannot run on our machines (no container engine), so
// their agreement with the code is checked here: each command runs a real entry point, and every
// variable they set is one the code reads.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Variable names the processes' config schemas read (their upper-case keys). */
const configSources = ['packages/runtime/src/config.ts', 'packages/kafka/src/security.ts', 'packages/kafka/src/topicSettings.ts', 'services/conversations/src/config.ts', 'services/messages/src/config.ts', 'services/management/src/config.ts', 'services/webhooks/src/config.ts', 'services/notifications/src/config.ts', 'gateway/src/config.ts'];
const knownVariables = new Set(configSources.flatMap((file) => [...read(file).matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1] as string)));

function entryPointExists(command: unknown): boolean {
  const path = Array.isArray(command) ? String(command.at(-1)) : '';
  return /\/dist\/main\.js$/.test(path) && existsSync(join(root, path.replace('/dist/main.js', '/src/main.ts')));
}

interface ComposeService {
  command?: unknown;
  environment?: Record<string, unknown>;
  healthcheck?: { test?: unknown };
  depends_on?: unknown;
}

describe('deployment manifests', () => {
  it('knows which variables the code reads', () => {
    expect(knownVariables).toContain('MONGO_URL');
    expect(knownVariables).toContain('CONVERSATIONS_URL');
  });

  it('compose: every platform service runs a real entry point with variables the code reads', () => {
    const compose = parse(read('infra/compose/compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
    const platform = Object.entries(compose.services).filter(([, s]) => s.command !== undefined);
    expect(platform.map(([name]) => name).sort()).toEqual(['conversations', 'gateway', 'management', 'messages', 'notifications', 'users', 'webhooks']);
    for (const [name, service] of platform) {
      expect(entryPointExists(service.command), name).toBe(true);
      for (const variable of Object.keys(service.environment ?? {})) expect(knownVariables, `${name}: ${variable}`).toContain(variable);
    }
  });

  it('compose: every container has a healthcheck, the platform\'s asks /readyz, and nothing starts before what it needs is healthy', () => {
    const compose = parse(read('infra/compose/compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.healthcheck?.test, name).toBeDefined();
      if (service.command !== undefined) expect(JSON.stringify(service.healthcheck?.test), name).toContain('/readyz');
      if (service.depends_on === undefined) continue;
      expect(Array.isArray(service.depends_on), `${name}: depends_on must name conditions`).toBe(false);
      for (const [needed, rule] of Object.entries(service.depends_on as Record<string, { condition?: string }>)) {
        expect(rule.condition, `${name} → ${needed}`).toBe('service_healthy');
      }
    }
  });

  it('kubernetes: every deployment runs a real entry point with variables the code reads', () => {
    const documents = parseAllDocuments(read('infra/k8s/chat-platform.yaml')).map((d) => d.toJS() as Record<string, any>);
    const configMap = documents.find((d) => d['kind'] === 'ConfigMap');
    const secrets = documents.filter((d) => d['kind'] === 'Secret');
    const shared = [...Object.keys(configMap?.['data'] ?? {}), ...secrets.flatMap((s) => Object.keys(s['stringData'] ?? {}))];
    for (const variable of shared) expect(knownVariables, variable).toContain(variable);

    const deployments = documents.filter((d) => d['kind'] === 'Deployment');
    expect(deployments).toHaveLength(7);
    for (const deployment of deployments) {
      const container = deployment['spec']['template']['spec']['containers'][0];
      expect(entryPointExists(container.command), deployment['metadata']['name']).toBe(true);
      for (const { name } of container.env as Array<{ name: string }>) expect(knownVariables, name).toContain(name);
      // Restart on a dead process (/healthz), take out of rotation when it cannot work (/readyz).
      expect(container.livenessProbe?.httpGet?.path, deployment['metadata']['name']).toBe('/healthz');
      expect(container.readinessProbe?.httpGet?.path, deployment['metadata']['name']).toBe('/readyz');
      const services = documents.filter((d) => d['kind'] === 'Service' && d['metadata']['name'] === deployment['metadata']['name']);
      expect(services).toHaveLength(1);
    }
  });

  it('kafka security: every backend may get the TLS and SASL settings and files, and the gateway needs none', () => {
    const compose = parse(read('infra/compose/compose.yaml'), { merge: true }) as { services: Record<string, ComposeService & { secrets?: string[] }> };
    const kafkaVariables = ['KAFKA_SSL', 'KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE', 'KAFKA_SSL_REJECT_UNAUTHORIZED', 'KAFKA_SASL_MECHANISM', 'KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'];
    const kafkaClients = Object.entries(compose.services).filter(([, s]) => s.command !== undefined && s.environment?.['KAFKA_BROKERS'] !== undefined);
    expect(kafkaClients.map(([name]) => name).sort()).toEqual(['conversations', 'management', 'messages', 'notifications', 'users', 'webhooks']);
    for (const [name, service] of kafkaClients) {
      expect(Object.keys(service.environment ?? {}), name).toEqual(expect.arrayContaining(kafkaVariables));
      expect(service.secrets, name).toEqual(['kafka_ca', 'kafka_cert', 'kafka_key']);
    }
    const documents = parseAllDocuments(read('infra/k8s/chat-platform.yaml')).map((d) => d.toJS() as Record<string, any>);
    const deployments = documents.filter((d) => d['kind'] === 'Deployment');
    for (const deployment of deployments) {
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

  it('kubernetes: topics replicated across the brokers, only the gateway reaches the services, and the Ingress serves DOMAIN\'s hosts', () => {
    const documents = parseAllDocuments(read('infra/k8s/chat-platform.yaml')).map((d) => d.toJS() as Record<string, any>);
    const config = documents.find((d) => d['kind'] === 'ConfigMap')?.['data'] as Record<string, string>;
    const brokers = config['KAFKA_BROKERS']!.split(',').length;
    expect(Number(config['KAFKA_REPLICATION_FACTOR'])).toBe(brokers);
    expect(Number(config['KAFKA_PARTITIONS'])).toBeGreaterThanOrEqual(3);

    const backends = documents.filter((d) => d['kind'] === 'Deployment' && d['metadata']['name'] !== 'gateway').map((d) => d['metadata']['name'] as string);
    const policies = documents.filter((d) => d['kind'] === 'NetworkPolicy');
    const guarding = policies.find((p) => p['spec']['podSelector']['matchExpressions']?.[0]?.values?.length === backends.length);
    expect(guarding).toBeDefined();
    expect([...(guarding?.['spec']['podSelector']['matchExpressions'][0].values as string[])].sort()).toEqual([...backends].sort());
    expect(guarding?.['spec']['ingress']).toEqual([{ from: [{ podSelector: { matchLabels: { app: 'gateway' } } }] }]);

    const ingress = documents.find((d) => d['kind'] === 'Ingress');
    const hosts = (ingress?.['spec']['rules'] as Array<{ host: string }>).map((rule) => rule.host);
    expect(hosts).toEqual([`*.api-${config['REGION']}.${config['DOMAIN']}`, `*.call-${config['REGION']}.${config['DOMAIN']}`, `apimgmt.${config['DOMAIN']}`]);
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
