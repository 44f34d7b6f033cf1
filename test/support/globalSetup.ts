import { randomBytes } from 'node:crypto';
import { startInfrastructure, startServices } from '@chat/devstack';
import type { TestProject } from 'vitest/node';
import { FakeProviders } from './fakeProviders.js';

declare module 'vitest' {
  export interface ProvidedContext {
    gatewayUrl: string;
    managementKey: string;
    managementSecret: string;
    kafkaBrokers: string;
    mongoUrl: string;
    redisUrl: string;
    serviceUrls: Record<'users' | 'conversations' | 'messages' | 'calls' | 'realtime' | 'management' | 'webhooks' | 'notifications', string>;
    /** Every replica of each service (REPLICAS); `serviceUrls` names the first. */
    replicaUrls: Record<string, string[]>;
    databaseSuffix: string;
    /** Control URL of the fake FCM/APNs/Twilio/SendGrid providers the notifications service calls. */
    fakeProvidersUrl: string;
  }
}

/**
 * Real Kafka, FerretDB and Redis (the project's own scripts, or KAFKA_BROKERS / MONGO_URL /
 * REDIS_URL when set), then every service as its own process on free ports with databases unique
 * to this run. Everything this started is stopped at the end, also when a test fails.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const infra = await startInfrastructure({ freshKafkaData: true });
  process.env['KAFKA_BROKERS'] = infra.kafkaBrokers;
  process.env['MONGO_URL'] = infra.mongoUrl;
  process.env['REDIS_URL'] = infra.redisUrl;
  const databaseSuffix = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const providers = await new FakeProviders().start();
  let services;
  try {
    services = await startServices({
      kafkaBrokers: infra.kafkaBrokers,
      mongoUrl: infra.mongoUrl,
      redisUrl: infra.redisUrl,
      ports: 'ephemeral',
      databaseSuffix,
      // Webhook receivers, agents and fake providers in tests listen on 127.0.0.1: loopback is the one
      // internal range tenant URLs may reach here, so every other internal address is refused as in
      // production (test/tenant-urls.e2e.test.ts). Retries run on a schedule of milliseconds.
      extraEnv: {
        LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
        TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8',
        WEBHOOK_RETRY_BASE_MS: '100',
        WEBHOOK_RETRY_MAX_MS: '800',
        NOTIFICATION_RETRY_BASE_MS: '100',
        NOTIFICATION_RETRY_MAX_MS: '800',
        // A test agent that never finishes is given up on after 3 s.
        AGENT_TIMEOUT_MS: '3000',
        // The suite fails authentication on purpose thousands of times, all from 127.0.0.1; the
        // key-guessing test runs a gateway of its own with the production budgets.
        AUTH_FAILURE_BURST: '1000000',
        AUTH_FAILURES_PER_MINUTE: '1000000',
        MANAGEMENT_LOGIN_FAILURE_BURST: '100000',
        MANAGEMENT_LOGIN_FAILURES_PER_MINUTE: '100000',
        ...providers.env(),
      },
    });
  } catch (error) {
    await providers.stop();
    await infra.stop();
    throw error;
  }
  project.provide('gatewayUrl', services.gatewayUrl);
  project.provide('managementKey', services.managementKey);
  project.provide('managementSecret', services.managementSecret);
  project.provide('kafkaBrokers', infra.kafkaBrokers);
  project.provide('mongoUrl', infra.mongoUrl);
  project.provide('redisUrl', infra.redisUrl);
  project.provide('serviceUrls', services.serviceUrls);
  const replicaUrls: Record<string, string[]> = {};
  for (const instance of services.instances) (replicaUrls[instance.service] ??= []).push(instance.url);
  project.provide('replicaUrls', replicaUrls);
  project.provide('databaseSuffix', databaseSuffix);
  project.provide('fakeProvidersUrl', providers.urls.http);
  return async () => {
    await services.stop();
    await providers.stop();
    await infra.stop();
  };
}
