import { apiKeyCacheKey, apiKeyIdentitySchema, appLocationSchema } from '@chat/contracts';
import type { ApiKeyIdentity, AppLocation } from '@chat/contracts';
import { counter } from '@chat/http';
import type { ManagementLookups } from './lookups.js';
import { TieredCache } from './tieredCache.js';
import type { RedisCache } from './tieredCache.js';

/**
 * Key cache bounds (DESIGN §3: a revoked key is refused everywhere within 1 s). Unknown keys have a
 * cache of their own, so guessed keys never push a real one out (ADR 0040).
 */
export const KEY_CACHE = { capacity: 10_000, negativeCapacity: 10_000, maxAgeMs: 1_000, refreshAfterMs: 500, negativeTtlMs: 1_000, redisTtlSeconds: 300 };
/** Apps are never changed or deleted here, so their existence may be remembered longer. */
const APP_CACHE = { capacity: 10_000, maxAgeMs: 60_000, refreshAfterMs: 30_000, negativeTtlMs: 1_000, redisTtlSeconds: 300 };

export interface CredentialSources {
  redis: RedisCache;
  fetchKey?: ManagementLookups['fetchKey'];
  fetchApp?: ManagementLookups['fetchApp'];
}

/**
 * What the gateway remembers of credentials, in this process and in Redis, in front of management's
 * look-ups: API keys (by hash) and apps (whether an app exists, and where it lives).
 */
export function credentialCaches(
  sources: CredentialSources,
  remote: ManagementLookups,
  onCacheError: (what: string) => (error: unknown, context: string) => void,
): { keys: TieredCache<ApiKeyIdentity>; apps: TieredCache<AppLocation> } {
  // Counted where it costs nothing: only a key neither this process nor Redis knew gets here.
  const keyLookups = counter('gateway_api_key_lookups_total', 'API keys looked up in the management service (known neither in this process nor in Redis).', []);
  const fetchKey = sources.fetchKey ?? remote.fetchKey;
  const keys = new TieredCache<ApiKeyIdentity>({
    ...KEY_CACHE,
    redis: sources.redis,
    redisKey: apiKeyCacheKey,
    load: (keyHash) => {
      keyLookups.inc();
      return fetchKey(keyHash);
    },
    parse: (raw) => apiKeyIdentitySchema.safeParse(JSON.parse(raw)).data ?? null,
    onError: onCacheError('api key cache'),
  });
  const apps = new TieredCache<AppLocation>({
    ...APP_CACHE,
    redis: sources.redis,
    redisKey: (appId) => `gateway:app:${appId}`,
    load: sources.fetchApp ?? remote.fetchApp,
    parse: (raw) => appLocationSchema.safeParse(JSON.parse(raw)).data ?? null,
    onError: onCacheError('app cache'),
  });
  return { keys, apps };
}
