import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from './config.js';

describe('service configuration', () => {
  it('carries the Kafka security settings, and stops the start on an incomplete one', () => {
    const defaults = { port: 3100, mongoDb: 'chat_test' };
    expect(loadServiceConfig({}, defaults).kafkaSecurity).toEqual({});
    const secured = loadServiceConfig({ KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256', KAFKA_SASL_USERNAME: 'chat', KAFKA_SASL_PASSWORD: 'pw' }, defaults);
    expect(secured.kafkaSecurity).toEqual({ sasl: { mechanism: 'scram-sha-256', username: 'chat', password: 'pw' } });
    expect(() => loadServiceConfig({ KAFKA_SASL_MECHANISM: 'PLAIN' }, defaults)).toThrow(
      'invalid Kafka security configuration: KAFKA_SASL_MECHANISM=PLAIN needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD',
    );
  });
});
