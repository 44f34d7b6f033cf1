import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';

export interface MongoConnection {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/**
 * How often each connection pool looks for connections to open or prune (issue 23, ADR 0100). The
 * driver's 100 ms woke every idle process ten times a second; with `minPoolSize` 0 and no idle limit
 * there is nothing to open, and the only connections to prune (a stale generation after a pool clear)
 * are also dropped when checked out. The setting is the driver's own, not in its public options.
 */
export const POOL_CHECK_INTERVAL_MS = 10_000;

export async function connectMongo(url: string, dbName: string, appName: string): Promise<MongoConnection> {
  const client = new MongoClient(url, { appName, maxPoolSize: 50, serverSelectionTimeoutMS: 10_000 });
  // Read by each server's pool when the topology is created at connect.
  (client.options as { minPoolSizeCheckFrequencyMS?: number }).minPoolSizeCheckFrequencyMS = POOL_CHECK_INTERVAL_MS;
  await client.connect();
  const db = client.db(dbName);
  await db.command({ ping: 1 });
  return { client, db, close: () => client.close() };
}

export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
