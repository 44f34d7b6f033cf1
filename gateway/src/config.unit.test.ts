import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

const base = {
  USERS_URL: 'http://127.0.0.1:3001',
  CONVERSATIONS_URL: 'http://127.0.0.1:3002',
  MESSAGES_URL: 'http://127.0.0.1:3003',
  MANAGEMENT_URL: 'http://localhost:3004/',
  WEBHOOKS_URL: 'http://localhost:3105/',
  NOTIFICATIONS_URL: 'http://localhost:3106/',
  MANAGEMENT_KEY: 'k',
  MANAGEMENT_SECRET: 's',
};

describe('gateway config', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({ port: 3000, region: 'us', domain: 'chat.localhost', upstreamTimeoutMs: 15_000 });
    expect(config.upstreams.users).toEqual([{ hostname: '127.0.0.1', port: 3001 }]);
    expect(config.managementUrl).toBe('http://localhost:3004');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('takes several replicas of a service, separated by commas', () => {
    const config = loadConfig({ ...base, MESSAGES_URL: 'http://127.0.0.1:3003, http://127.0.0.1:3013' });
    expect(config.upstreams.messages).toEqual([
      { hostname: '127.0.0.1', port: 3003 },
      { hostname: '127.0.0.1', port: 3013 },
    ]);
    expect(() => loadConfig({ ...base, MESSAGES_URL: 'http://127.0.0.1:3003,ftp://x' })).toThrow(/MESSAGES_URL/);
    expect(() => loadConfig({ ...base, MESSAGES_URL: ' , ' })).toThrow(/MESSAGES_URL/);
  });

  it('refuses upstreams it could not forward to unchanged', () => {
    expect(() => loadConfig({ ...base, USERS_URL: 'http://127.0.0.1:3001/users' })).toThrow(/USERS_URL/);
    expect(() => loadConfig({ ...base, USERS_URL: 'https://users' })).toThrow(/USERS_URL/);
    expect(() => loadConfig({ ...base, MANAGEMENT_SECRET: undefined })).toThrow(/MANAGEMENT_SECRET/);
  });
});
