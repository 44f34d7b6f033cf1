import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
import { z } from 'zod';

/**
 * How a Kafka client proves itself to the brokers and protects the connection: kafkajs' `ssl` and
 * `sasl` options. Empty (the default) is a plaintext, unauthenticated connection, as the development
 * broker (infra/kafka/server.properties) serves.
 */
export interface KafkaSecurity {
  ssl?: ConnectionOptions;
  sasl?: SASLOptions;
}

const flag = (name: string, fallback: 'true' | 'false') =>
  z
    .enum(['true', 'false'], { message: `${name} must be true or false` })
    .default(fallback)
    .transform((value) => value === 'true');

const schema = z
  .object({
    KAFKA_SSL: flag('KAFKA_SSL', 'false'),
    KAFKA_SSL_CA_FILE: z.string().min(1).optional(),
    KAFKA_SSL_CERT_FILE: z.string().min(1).optional(),
    KAFKA_SSL_KEY_FILE: z.string().min(1).optional(),
    KAFKA_SSL_REJECT_UNAUTHORIZED: flag('KAFKA_SSL_REJECT_UNAUTHORIZED', 'true'),
    KAFKA_SASL_MECHANISM: z
      .string()
      .transform((value) => value.toLowerCase())
      .pipe(z.enum(['plain', 'scram-sha-256', 'scram-sha-512'], { message: 'KAFKA_SASL_MECHANISM must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512' }))
      .optional(),
    KAFKA_SASL_USERNAME: z.string().min(1).optional(),
    KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  })
  .superRefine((e, ctx) => {
    const problem = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (e.KAFKA_SASL_MECHANISM && (!e.KAFKA_SASL_USERNAME || !e.KAFKA_SASL_PASSWORD)) {
      problem(`KAFKA_SASL_MECHANISM=${e.KAFKA_SASL_MECHANISM.toUpperCase()} needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD`);
    }
    // Credentials without a mechanism would connect unauthenticated while the operator thinks otherwise.
    if (!e.KAFKA_SASL_MECHANISM && (e.KAFKA_SASL_USERNAME || e.KAFKA_SASL_PASSWORD)) {
      problem('KAFKA_SASL_USERNAME/KAFKA_SASL_PASSWORD need KAFKA_SASL_MECHANISM (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)');
    }
    // Likewise TLS settings without TLS: the connection would be plaintext.
    const tlsSettings = (['KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE'] as const).filter((name) => e[name] !== undefined);
    if (!e.KAFKA_SSL && (tlsSettings.length > 0 || !e.KAFKA_SSL_REJECT_UNAUTHORIZED)) {
      problem(`${[...tlsSettings, ...(e.KAFKA_SSL_REJECT_UNAUTHORIZED ? [] : ['KAFKA_SSL_REJECT_UNAUTHORIZED'])].join(', ')} need KAFKA_SSL=true`);
    }
    if ((e.KAFKA_SSL_CERT_FILE === undefined) !== (e.KAFKA_SSL_KEY_FILE === undefined)) {
      problem('KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE go together (a client certificate and its key)');
    }
  });

/** The environment variables `loadKafkaSecurity` reads (for manifests and documentation). */
export const KAFKA_SECURITY_VARIABLES = Object.keys(schema.shape);

/**
 * Reads the Kafka security settings once, at start: an inconsistent combination or an unreadable file
 * stops the process with a message naming the variable, rather than a client that retries a broker
 * that keeps refusing it. Files are read here, so a missing one fails the start, not the first connect.
 */
export function loadKafkaSecurity(env: NodeJS.ProcessEnv, readFile: (path: string) => string = (path) => readFileSync(path, 'utf8')): KafkaSecurity {
  // Empty is unset: compose and Kubernetes pass `${VAR:-}` and optional Secret keys that way.
  const given = Object.fromEntries(KAFKA_SECURITY_VARIABLES.map((name) => [name, env[name] === '' ? undefined : env[name]]));
  const parsed = schema.safeParse(given);
  if (!parsed.success) {
    throw new Error(`invalid Kafka security configuration: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  }
  const e = parsed.data;
  const file = (name: string, path: string): string => {
    try {
      return readFile(path);
    } catch (error) {
      throw new Error(`invalid Kafka security configuration: ${name}=${path} cannot be read (${(error as Error).message})`, { cause: error });
    }
  };
  const ssl: ConnectionOptions | undefined = e.KAFKA_SSL
    ? {
        rejectUnauthorized: e.KAFKA_SSL_REJECT_UNAUTHORIZED,
        ...(e.KAFKA_SSL_CA_FILE ? { ca: [file('KAFKA_SSL_CA_FILE', e.KAFKA_SSL_CA_FILE)] } : {}),
        ...(e.KAFKA_SSL_CERT_FILE ? { cert: file('KAFKA_SSL_CERT_FILE', e.KAFKA_SSL_CERT_FILE) } : {}),
        ...(e.KAFKA_SSL_KEY_FILE ? { key: file('KAFKA_SSL_KEY_FILE', e.KAFKA_SSL_KEY_FILE) } : {}),
      }
    : undefined;
  const sasl = saslOf(e.KAFKA_SASL_MECHANISM, e.KAFKA_SASL_USERNAME, e.KAFKA_SASL_PASSWORD);
  return { ...(ssl ? { ssl } : {}), ...(sasl ? { sasl } : {}) };
}

function saslOf(mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512' | undefined, username?: string, password?: string): SASLOptions | undefined {
  if (!mechanism || !username || !password) return undefined;
  // kafkajs types one options shape per mechanism: each branch builds its own member of the union.
  switch (mechanism) {
    case 'plain':
      return { mechanism, username, password };
    case 'scram-sha-256':
      return { mechanism, username, password };
    case 'scram-sha-512':
      return { mechanism, username, password };
  }
}

/** What a log line may say about the settings: the mechanism and user, never the password or key. */
export function describeKafkaSecurity(security: KafkaSecurity): string {
  const tls = security.ssl ? `TLS${security.ssl.rejectUnauthorized === false ? ' (certificate not verified)' : ''}` : 'plaintext';
  const sasl = security.sasl && 'username' in security.sasl ? `, SASL ${security.sasl.mechanism.toUpperCase()} as ${security.sasl.username}` : '';
  return `${tls}${sasl}`;
}
