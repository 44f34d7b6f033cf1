/**
 * The FerretDB runner's optional flags, each from a variable of the environment the devstack starts in
 * (for measuring; tests set none): which collections spend its write lock, more SQLite pragmas, Go's profiler.
 */
const OPTIONAL_FLAGS: readonly (readonly [variable: string, flag: string])[] = [
  // e.g. 10s: the runner prints which collections spend its write lock (ADR 0046).
  ['FERRETDB_STATS_INTERVAL', '--stats-interval'],
  // e.g. 50ms: the runner prints every command that waited for its write lock and ran this long (ADR 0155).
  ['FERRETDB_SLOW_COMMANDS', '--slow-commands'],
  // e.g. cache_size(-2000): SQLite pragmas for every database, in place of the runner's default (ADR 0152).
  ['FERRETDB_SQLITE_PRAGMAS', '--sqlite-pragmas'],
  // pool: writes on any of a database's connections, as upstream FerretDB; the runner's default is one (ADR 0164).
  ['FERRETDB_SQLITE_WRITERS', '--sqlite-writers'],
  // e.g. cache_size(-65536): pragmas for the reading connections alone, in place of the runner's default (ADR 0164).
  ['FERRETDB_SQLITE_READER_PRAGMAS', '--sqlite-reader-pragmas'],
  // e.g. 127.0.0.1:6060: the runner serves Go's CPU profiler there (ADR 0046).
  ['FERRETDB_PPROF_ADDR', '--pprof-addr'],
];

export function ferretdbOptionalFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return OPTIONAL_FLAGS.flatMap(([variable, flag]) => (env[variable] ? [flag, env[variable]] : []));
}
