import { createConnection } from 'node:net';
import type { KafkaSecurity } from '@chat/kafka';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';

// Each probe makes one attempt with short client timeouts and throws when the service does not answer;
// callers retry. A listening port proves nothing (Kafka accepts connections long before it serves metadata).

/** `security`: the devstack's own broker is plaintext; a secured one is probed with the clients' settings. */
export async function probeKafka(brokers: string, security: KafkaSecurity = {}): Promise<void> {
  const kafka = new Kafka({
    clientId: 'devstack-probe',
    brokers: brokers.split(','),
    ...security,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 5_000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.listTopics();
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export async function probeMongo(url: string): Promise<void> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 2_000, connectTimeoutMS: 2_000 });
  try {
    await client.connect();
    await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close().catch(() => undefined);
  }
}

export async function probeRedis(url: string): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    commandTimeout: 2_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // Without a listener ioredis prints every refused connection as an "Unhandled error event".
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    if ((await redis.ping()) !== 'PONG') throw new Error('unexpected PING reply');
  } finally {
    redis.disconnect();
  }
}

/** Cheap pre-check so an idle port costs milliseconds instead of a client's connect timeout. */
export function portIsOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    const done = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
