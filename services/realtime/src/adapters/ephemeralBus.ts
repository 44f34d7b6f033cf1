import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';

/**
 * Typing and presence between replicas (ADR 0077): Redis pub/sub, one channel per app, every replica
 * subscribed to the pattern and delivering to the connections it holds. Fire and forget: a replica
 * that is away misses them, which is what ephemeral means (never the event store, never replayed).
 */
const CHANNEL_PREFIX = 'realtime:app:';

const noticeSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('typing'),
    appId: z.string(),
    type: z.enum(['typing_started', 'typing_ended']),
    sender: z.string(),
    receiver: z.string(),
    receiverType: z.enum(['user', 'group']),
  }),
  z.object({
    kind: z.literal('presence'),
    appId: z.string(),
    uid: z.string(),
    status: z.enum(['online', 'offline']),
    lastActiveAt: z.number().int(),
    /** The users told (friends and one-on-one peers), wherever they are connected. */
    audience: z.array(z.string()),
  }),
]);
export type EphemeralNotice = z.infer<typeof noticeSchema>;

export class EphemeralBus {
  private subscriber: Redis | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  async subscribe(handler: (notice: EphemeralNotice) => void): Promise<void> {
    // Waits for Redis however long it is away (no retry limit), and ioredis subscribes again after a reconnect.
    this.subscriber = this.redis.duplicate({ maxRetriesPerRequest: null });
    this.subscriber.on('error', (error: unknown) => this.logger.warn({ err: error }, 'redis subscriber error'));
    this.subscriber.on('pmessage', (_pattern: string, _channel: string, text: string) => {
      let parsed: ReturnType<typeof noticeSchema.safeParse>;
      try {
        parsed = noticeSchema.safeParse(JSON.parse(text));
      } catch {
        return;
      }
      if (parsed.success) handler(parsed.data);
    });
    await this.subscriber.psubscribe(`${CHANNEL_PREFIX}*`);
  }

  publish(notice: EphemeralNotice): void {
    this.redis.publish(`${CHANNEL_PREFIX}${notice.appId}`, JSON.stringify(notice)).catch((error: unknown) => this.logger.warn({ err: error }, 'an ephemeral notice was not published'));
  }

  async close(): Promise<void> {
    await this.subscriber?.quit();
  }
}
