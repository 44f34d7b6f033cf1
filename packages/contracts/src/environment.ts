import { z } from 'zod';

/**
 * How every process reads its environment: one zod schema per process, parsed once at start. A bad
 * value stops the start with one message that names the process and every variable at fault, instead
 * of a stack trace or a failure at the first request that needs it.
 */
export function parseEnvironment<Schema extends z.ZodType>(processName: string, schema: Schema, env: NodeJS.ProcessEnv): z.output<Schema> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`${processName}: invalid configuration: ${problems}`);
  }
  return parsed.data;
}

/** pino's levels: any other LOG_LEVEL is refused at start rather than by the logger. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `LOG_LEVEL`: `info` unless set. */
export const logLevelSetting = z.enum(LOG_LEVELS).default('info');

/** The log level the environment names, for a logger made without a process's configuration. */
export function logLevelOf(env: NodeJS.ProcessEnv): LogLevel {
  return parseEnvironment('LOG_LEVEL', z.object({ LOG_LEVEL: logLevelSetting }), env).LOG_LEVEL;
}

/** A TCP port to listen on (0: any free one, as tests ask): required unless the process has a default. */
export function portSetting(defaultPort?: number) {
  const port = z.coerce.number().int().min(0).max(65_535);
  return defaultPort === undefined ? port : port.default(defaultPort);
}
