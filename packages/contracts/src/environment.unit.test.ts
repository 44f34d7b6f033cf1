import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { logLevelOf, logLevelSetting, parseEnvironment, portSetting } from './environment.js';

describe('environment', () => {
  const schema = z.object({ PORT: portSetting(3000), ADMIN_PORT: portSetting(), LOG_LEVEL: logLevelSetting });

  it('takes the defaults and coerces the ports', () => {
    expect(parseEnvironment('test', schema, { ADMIN_PORT: '9000' })).toEqual({ PORT: 3000, ADMIN_PORT: 9000, LOG_LEVEL: 'info' });
    expect(parseEnvironment('test', schema, { PORT: '0', ADMIN_PORT: '1', LOG_LEVEL: 'silent' })).toEqual({ PORT: 0, ADMIN_PORT: 1, LOG_LEVEL: 'silent' });
  });

  it('stops the start naming the process and every variable at fault', () => {
    expect(() => parseEnvironment('test', schema, { PORT: '70000', LOG_LEVEL: 'verbose' })).toThrow(/^test: invalid configuration: PORT: .*; ADMIN_PORT: .*; LOG_LEVEL: /);
  });

  it('reads the log level alone for a logger made without a configuration', () => {
    expect(logLevelOf({})).toBe('info');
    expect(logLevelOf({ LOG_LEVEL: 'debug' })).toBe('debug');
    expect(() => logLevelOf({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
