import { Redis } from 'ioredis';
import { inject } from 'vitest';

/** Every key of this run's Redis with its value, whatever its type, as text (binary-safe: bytes read as latin1 and utf8). */
export async function everyRedisEntry(): Promise<string[]> {
  const redis = new Redis(inject('redisUrl'), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const seen: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) seen.push(`${key} ${await valueOf(redis, key)}`);
    } while (cursor !== '0');
    return seen;
  } finally {
    redis.disconnect();
  }
}

async function valueOf(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  const text = (parts: Buffer[]) => parts.map((b) => `${b.toString('utf8')} ${b.toString('latin1')}`).join('\n');
  switch (type) {
    case 'string': {
      const value = await redis.getBuffer(key);
      return value ? text([value]) : '';
    }
    case 'hash':
      return text(Object.entries(await redis.hgetallBuffer(key)).flatMap(([field, value]) => [Buffer.from(field), value]));
    case 'list':
      return text(await redis.lrangeBuffer(key, 0, -1));
    case 'set':
      return text(await redis.smembersBuffer(key));
    case 'zset':
      return text(await redis.zrangeBuffer(key, 0, -1));
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'));
    default:
      return '';
  }
}
