import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('management configuration', () => {
  const base = { PORT: '3104', WEBHOOK_SECRETS_KEY: 'ab12'.repeat(16) };

  it('reads the settings every service process has, with its own defaults', () => {
    const config = loadConfig({ ...base, KAFKA_BROKERS: 'k1:9092, k2:9092' });
    expect(config).toMatchObject({ port: 3104, host: '127.0.0.1', mongoDb: 'chat_management', kafkaBrokers: ['k1:9092', 'k2:9092'], logLevel: 'info' });
    // Not bounded by admission limits and never gated on the consumers' backlog, as before.
    expect(config.admission).toBeUndefined();
    expect(config.backlog).toBeUndefined();
  });

  it('needs PORT and a known LOG_LEVEL', () => {
    expect(() => loadConfig({ WEBHOOK_SECRETS_KEY: base.WEBHOOK_SECRETS_KEY })).toThrow(/^management: invalid configuration: PORT/);
    expect(() => loadConfig({ ...base, LOG_LEVEL: 'loud' })).toThrow(/management: invalid configuration: LOG_LEVEL/);
  });
});
