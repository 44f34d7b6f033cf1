import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { containerEngineAnswers, startContainers } from './containers.js';

// The container path (INFRA_RUNTIME=containers) for real, wherever a container engine answers; skipped,
// saying why, where none does. A testcontainers that cannot load fails here (the check throws).
const engine = await containerEngineAnswers();
if (!engine) console.warn('[containers] skipped: no container engine answers (DOCKER_HOST or the local Docker socket)');

describe('infrastructure in containers', () => {
  it.skipIf(!engine)('starts a Redis container that answers, and stops it', async () => {
    const lines: string[] = [];
    const started = await startContainers(['redis'], process.env, (line) => lines.push(line));
    try {
      expect(lines.join('\n')).toMatch(/redis: .+ ready at redis:\/\/.+ \(container\)/);
      const redis = new Redis(started.urls.redis ?? '', { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      expect(await redis.ping()).toBe('PONG');
      redis.disconnect();
    } finally {
      await started.stop();
    }
  }, 180_000);
});
