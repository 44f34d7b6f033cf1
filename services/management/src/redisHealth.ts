import { sampledGauge } from '@chat/http';
import type { Probes } from '@chat/http';

/**
 * Redis carries key invalidations to the gateways, nothing a key look-up needs: without it a revoked
 * key is still refused within the gateways' 1 s cache age, while an unready management empties its
 * Kubernetes Service and every chat request fails (ADR 0040). So its loss is reported — in /readyz
 * as `degraded` and as a gauge — and never takes management out of rotation.
 */
export function watchRedis(probes: Probes, redis: { readonly status: string }): () => void {
  probes.add('redis', () => redis.status === 'ready', { gatesReadiness: false });
  return sampledGauge('management_redis_connected', '1 while management holds a Redis connection (key invalidations reach the gateways).', [], () => [
    { labels: {}, value: redis.status === 'ready' ? 1 : 0 },
  ]);
}
