import { describe, expect, it } from 'vitest';
import { ferretdbOptionalFlags } from './ferretdbFlags.js';

describe("the FerretDB runner's optional flags", () => {
  it('are none without their variables, and each variable set gives its flag and value', () => {
    expect(ferretdbOptionalFlags({})).toEqual([]);
    expect(ferretdbOptionalFlags({ FERRETDB_SQLITE_PRAGMAS: 'cache_size(-2000)', FERRETDB_STATS_INTERVAL: '10s', FERRETDB_PPROF_ADDR: '' })).toEqual([
      '--stats-interval',
      '10s',
      '--sqlite-pragmas',
      'cache_size(-2000)',
    ]);
    expect(ferretdbOptionalFlags({ FERRETDB_SLOW_COMMANDS: '50ms' })).toEqual(['--slow-commands', '50ms']);
    expect(ferretdbOptionalFlags({ FERRETDB_SQLITE_WRITERS: 'pool', FERRETDB_SQLITE_READER_PRAGMAS: 'cache_size(-65536)' })).toEqual([
      '--sqlite-writers',
      'pool',
      '--sqlite-reader-pragmas',
      'cache_size(-65536)',
    ]);
  });
});
