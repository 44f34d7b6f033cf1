import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';

export interface MongoConnection {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

export async function connectMongo(url: string, dbName: string, appName: string): Promise<MongoConnection> {
  const client = new MongoClient(url, { appName, maxPoolSize: 50, serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  const db = client.db(dbName);
  await db.command({ ping: 1 });
  return { client, db, close: () => client.close() };
}

export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
