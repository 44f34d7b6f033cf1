import { API_KEY_INVALIDATION_CHANNEL, apiKeyCacheKey } from '@chat/contracts';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Tells every gateway that a key changed: DEL its shared cache entry, then PUBLISH its hash so each
 * gateway drops its in-process copy. Both in one MULTI, so a gateway that hears the message already
 * finds Redis cleared.
 */
export class ApiKeyCacheInvalidator {
  private readonly repeats = new Set<NodeJS.Timeout>();

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  async invalidate(keyHashes: readonly string[]): Promise<void> {
    if (keyHashes.length === 0) return;
    const multi = this.redis.multi();
    for (const hash of keyHashes) multi.del(apiKeyCacheKey(hash)).publish(API_KEY_INVALIDATION_CHANNEL, hash);
    const results = await multi.exec();
    const failed = results?.find(([error]) => error !== null);
    if (!results || failed) throw failed?.[0] ?? new Error('redis transaction aborted');
  }

  /**
   * Invalidates now and once more a little later. A gateway that read the read model just before the
   * change can write the old identity back into Redis just after our DEL; the second pass removes it
   * even when the topic consumer (which repeats the invalidation too) is lagging or Kafka is down.
   */
  async invalidateTwice(keyHashes: readonly string[], repeatAfterMs = 1_000): Promise<void> {
    const timer = setTimeout(() => {
      this.repeats.delete(timer);
      this.invalidate(keyHashes).catch((error: unknown) => this.logger.error({ err: error }, 'repeated api key invalidation failed'));
    }, repeatAfterMs);
    timer.unref();
    this.repeats.add(timer);
    await this.invalidate(keyHashes);
  }

  stop(): void {
    for (const timer of this.repeats) clearTimeout(timer);
    this.repeats.clear();
  }
}
