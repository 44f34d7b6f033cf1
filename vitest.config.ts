import { defineConfig } from 'vitest/config';

// Two tiers: `unit` is pure and needs nothing; `system` gets real Kafka, FerretDB, Redis and the
// running services from one global setup (started by the project's own scripts, or taken from
// KAFKA_BROKERS / MONGO_URL / REDIS_URL).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{packages,services,gateway,infra}/**/src/**/*.unit.test.ts', 'test/lint/*.unit.test.ts'],
        },
      },
      {
        test: {
          name: 'system',
          include: ['{packages,services,gateway,infra}/**/src/**/*.int.test.ts', 'test/**/*.e2e.test.ts'],
          globalSetup: ['test/support/globalSetup.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        // Tests that start processes of their own on the shared topics and must not wait behind the
        // history a whole suite left there: a stack of their own, after the main run (scripts/test.sh).
        test: {
          name: 'fresh',
          include: ['test/**/*.fresh.test.ts'],
          globalSetup: ['test/support/globalSetup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        // Two replicas of every service, on a stack (and Kafka log) the test starts itself (scripts/test.sh).
        test: {
          name: 'replicas',
          include: ['test/**/*.replica.test.ts'],
          testTimeout: 600_000,
          hookTimeout: 900_000,
          fileParallelism: false,
        },
      },
      {
        // The bulk import (10,000 messages) on a stack of its own, after the others (scripts/test.sh):
        // FerretDB scans a collection for every list query, so its data would slow every later test.
        test: {
          name: 'bulk',
          include: ['test/**/*.bulk.test.ts'],
          globalSetup: ['test/support/globalSetup.ts'],
          testTimeout: 600_000,
          hookTimeout: 900_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
