import type { CommandStartedEvent, Db, Document, MongoClient } from 'mongodb';

// Test support for integration tests on this platform's FerretDB (SQLite backend).

/**
 * The index SQLite searches for a `find` with this filter (from the store's `explain`), or null when
 * its plan scans a table: on this store a scan decodes every tenant's documents (ADR 0074), so an
 * integration test of a per-request read asks for the index by name.
 */
export async function indexSearchedBy(db: Db, collection: string, filter: Document): Promise<string | null> {
  const explained = await db.command({ explain: { find: collection, filter } });
  const plan = JSON.stringify(explained['queryPlanner']);
  if (/SCAN/.test(plan)) return null;
  return /SEARCH \S+ USING (?:COVERING )?INDEX (\S+)/.exec(plan)?.[1] ?? null;
}

/**
 * The filters of the commands on `collection` (only `commandName`'s, when given) that `client` sends
 * while `run` runs: what an integration test of a read asks `indexSearchedBy` about. The client must
 * be created with `monitorCommands: true`.
 */
export async function filtersSent(client: MongoClient, collection: string, run: () => Promise<unknown>, commandName?: string): Promise<Document[]> {
  const filters: Document[] = [];
  const listener = (event: CommandStartedEvent) => {
    if (commandName !== undefined && event.commandName !== commandName) return;
    if (event.command[event.commandName] === collection) filters.push((event.command['filter'] as Document | undefined) ?? event.command);
  };
  client.on('commandStarted', listener);
  try {
    await run();
  } finally {
    client.off('commandStarted', listener);
  }
  return filters;
}
