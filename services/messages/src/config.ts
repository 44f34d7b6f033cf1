import { z } from 'zod';

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3103),
  HOST: z.string().default('127.0.0.1'),
  MONGO_URL: z.string().min(1).default('mongodb://127.0.0.1:27017'),
  MONGO_DB: z.string().min(1).default('chat_messages'),
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:9092'),
  LOG_LEVEL: z.string().default('info'),
});

export interface MessagesConfig {
  port: number;
  host: string;
  mongoUrl: string;
  mongoDb: string;
  kafkaBrokers: string[];
  logLevel: string;
}

/** The only reader of process.env in this service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<MessagesConfig> {
  const parsed = schema.parse(env);
  return Object.freeze({
    port: parsed.PORT,
    host: parsed.HOST,
    mongoUrl: parsed.MONGO_URL,
    mongoDb: parsed.MONGO_DB,
    kafkaBrokers: parsed.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
    logLevel: parsed.LOG_LEVEL,
  });
}
