import { parseEnvironment } from '@chat/contracts';
import { loadServiceConfig } from '@chat/runtime';
import type { ServiceConfig } from '@chat/runtime';
import { z } from 'zod';

export interface UsersConfig extends ServiceConfig {
  /** Where realtime records presence (ADR 0077): `GET /users/{uid}` reads the user's status there. */
  redisUrl: string;
}

const usersSettings = z.object({ REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379') });

/** The only reader of process.env in the users service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<UsersConfig> {
  const own = parseEnvironment('users', usersSettings, env);
  return { ...loadServiceConfig(env, { port: 3101, mongoDb: 'chat_users' }), redisUrl: own.REDIS_URL };
}
