// The FerretDB runner's own tally of what held its write lock (FERRETDB_STATS_INTERVAL, ADR 0046),
// read back from its log between two offsets: shared by bench/cost.mjs (our stack) and bench/floor.mjs
// (the floor pipeline), so both count write-lock time the same way.
import { closeSync, existsSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The log the devstack gives the runner it spawned for `mongoUrl` (`.infra/logs/ferretdb-<port>.log`). */
export function storeLogOf(mongoUrl) {
  return join(fileURLToPath(new URL('..', import.meta.url)), '.infra', 'logs', `ferretdb-${new URL(mongoUrl).port}.log`);
}

/**
 * The devstack's FerretDB data directory for that URL: its database files and their bytes (null when the
 * store is not the devstack's). Benches and tests on one port leave their databases behind, and an aged
 * directory slows every figure (issue 23: ×1.4 on the write lock at 2.5 GB): printed beside the baseline.
 */
export function storeDataOf(mongoUrl) {
  const dir = join(fileURLToPath(new URL('..', import.meta.url)), '.infra', 'ferretdb', `data-${new URL(mongoUrl).port}`);
  if (!existsSync(dir)) return null;
  let files = 0;
  let bytes = 0;
  for (const name of readdirSync(dir)) {
    files += name.endsWith('.sqlite') ? 1 : 0;
    bytes += statSync(join(dir, name)).size;
  }
  return { dir, databases: files, bytes };
}

/** FERRETDB_STATS_INTERVAL as ms. */
export function parseDuration(text) {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text.trim());
  if (!match) throw new Error(`FERRETDB_STATS_INTERVAL: ${text} is not a duration like 1s or 500ms`);
  return Number(match[1]) * { ms: 1, s: 1_000, m: 60_000 }[match[2]];
}

/** A file's size, 0 when it does not exist: the offset a tally is read from. */
export function fileSize(path) {
  return existsSync(path) ? statSync(path).size : 0;
}

/**
 * The FerretDB runner's tallies printed between two offsets of its log, summed per command and
 * namespace; the namespace is shown as `<service>.<collection>` for the stack's databases. Each report
 * covers the interval before it; with no command in an interval the runner prints none.
 *
 * @returns {{ reports: number, writeBusyMs: number, rows: { kind: 'read' | 'write', command: string, collection: string, commands: number, statements: number, busyMs: number }[] } | null}
 */
export function readTally(path, from, to, databaseSuffix) {
  if (to <= from) return null;
  const fd = openSync(path, 'r');
  const buffer = Buffer.alloc(to - from);
  try {
    readSync(fd, buffer, 0, buffer.length, from);
  } finally {
    closeSync(fd);
  }
  const row = /^\s+(read|write)\s+(\S+)\s+(\S+)\s+(\d+) cmds\s+(\d+) stmts\s+([\d.]+) ms busy/;
  const rows = new Map();
  let reports = 0;
  for (const line of buffer.toString('utf8').split('\n')) {
    if (line.startsWith('ferretdb-runner stats over')) reports += 1;
    const match = row.exec(line);
    if (!match || reports === 0) continue;
    const [, kind, command, namespace, commands, statements, busy] = match;
    const own = new RegExp(`^chat_([a-z]+)_${databaseSuffix}\\.(.+)$`).exec(namespace);
    const collection = own ? `${own[1]}.${own[2]}` : namespace;
    const key = `${kind} ${command} ${collection}`;
    const entry = rows.get(key) ?? { kind, command, collection, commands: 0, statements: 0, busyMs: 0 };
    entry.commands += Number(commands);
    entry.statements += Number(statements);
    entry.busyMs += Number(busy);
    rows.set(key, entry);
  }
  if (reports === 0) return null;
  const all = [...rows.values()];
  return { reports, writeBusyMs: all.filter((r) => r.kind === 'write').reduce((a, r) => a + r.busyMs, 0), rows: all };
}

/** The database whose writes held the store's write lock longest: `<service>` for the stack's own. */
export function busiestLock(tally) {
  const byDatabase = new Map();
  for (const row of tally.rows) {
    if (row.kind !== 'write') continue;
    const database = row.collection.split('.')[0];
    byDatabase.set(database, (byDatabase.get(database) ?? 0) + row.busyMs);
  }
  const [database, busyMs] = [...byDatabase].sort((a, b) => b[1] - a[1])[0] ?? ['none', 0];
  return { database, busyMs };
}

