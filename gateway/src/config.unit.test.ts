import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

const base = {
  USERS_URL: 'http://127.0.0.1:3001',
  CONVERSATIONS_URL: 'http://127.0.0.1:3002',
  MESSAGES_URL: 'http://127.0.0.1:3003',
  CALLS_URL: 'http://127.0.0.1:3007',
  MANAGEMENT_URL: 'http://localhost:3004/',
  WEBHOOKS_URL: 'http://localhost:3105/',
  NOTIFICATIONS_URL: 'http://localhost:3106/',
  MANAGEMENT_KEY: '3f9a1c7e5b2d4068af1e9c3b7d5a2f60',
  MANAGEMENT_SECRET: '8c1e4a7f2b9d3e6051af8c2e7b4d9f13a6c0e5b8',
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

  it('refuses management credentials that are short, placeholders or not random (fails closed)', () => {
    expect(() => loadConfig({ ...base, MANAGEMENT_KEY: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d' })).toThrow(/MANAGEMENT_KEY: must be at least 32/);
    expect(() => loadConfig({ ...base, MANAGEMENT_SECRET: 'replace-me' })).toThrow(/MANAGEMENT_SECRET/);
    for (const placeholder of ['replace-me-with-a-long-random-value-here', 'CHANGEME_0123456789abcdefghijklmnop', 'your-secret-0123456789abcdefghijklmno']) {
      expect(() => loadConfig({ ...base, MANAGEMENT_SECRET: placeholder })).toThrow(/MANAGEMENT_SECRET: is a placeholder/);
    }
    expect(() => loadConfig({ ...base, MANAGEMENT_KEY: 'ab'.repeat(20) })).toThrow(/MANAGEMENT_KEY: repeats too few/);
    expect(loadConfig(base).managementKey).toBe(base.MANAGEMENT_KEY);
  });

  it('believes X-Forwarded-For only from listed proxy addresses, and takes failure budgets', () => {
    const config = loadConfig({ ...base, GATEWAY_TRUSTED_PROXIES: '10.0.0.7, ::ffff:10.0.0.8, 172.16.0.0/12, fd00::/8', AUTH_FAILURE_BURST: '5', GATEWAY_ADMIN_PORT: '9090' });
    for (const address of ['10.0.0.7', '10.0.0.8', '172.31.255.1', 'fd12::1']) expect(config.trustedProxies.has(address), address).toBe(true);
    for (const address of ['10.0.0.9', '172.32.0.1', 'fe80::1', 'not-an-address']) expect(config.trustedProxies.has(address), address).toBe(false);
    expect(config.authFailures).toEqual({ burst: 5, perMinute: 120 });
    expect(config.adminPort).toBe(9090);
    expect(loadConfig(base).adminPort).toBeUndefined();
    for (const bad of ['lb.internal', '10.0.0.0/33', '10.0.0.0/8/1']) expect(() => loadConfig({ ...base, GATEWAY_TRUSTED_PROXIES: bad })).toThrow(/GATEWAY_TRUSTED_PROXIES/);
  });
});
