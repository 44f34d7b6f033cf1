import { describe, expect, it } from 'vitest';
import { describeKafkaSecurity, loadKafkaSecurity } from './security.js';

const files: Record<string, string> = { '/ca.pem': 'CA PEM', '/cert.pem': 'CERT PEM', '/key.pem': 'KEY PEM' };
const readFile = (path: string): string => {
  const text = files[path];
  if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
  return text;
};
const load = (env: Record<string, string>) => loadKafkaSecurity(env, readFile);

describe('Kafka security settings', () => {
  it('are plaintext and unauthenticated by default', () => {
    expect(load({})).toEqual({});
    expect(describeKafkaSecurity(load({}))).toBe('plaintext');
    // Empty is unset (compose's `${VAR:-}`).
    expect(load({ KAFKA_SSL_CA_FILE: '', KAFKA_SASL_MECHANISM: '', KAFKA_SASL_USERNAME: '', KAFKA_SASL_PASSWORD: '' })).toEqual({});
  });

  it.each([
    ['PLAIN', 'plain'],
    ['SCRAM-SHA-256', 'scram-sha-256'],
    ['scram-sha-512', 'scram-sha-512'],
  ])('take SASL %s with its credentials', (given, mechanism) => {
    const security = load({ KAFKA_SASL_MECHANISM: given, KAFKA_SASL_USERNAME: 'chat', KAFKA_SASL_PASSWORD: 's3cret' });
    expect(security).toEqual({ sasl: { mechanism, username: 'chat', password: 's3cret' } });
    expect(describeKafkaSecurity(security)).toBe(`plaintext, SASL ${mechanism.toUpperCase()} as chat`);
    expect(describeKafkaSecurity(security)).not.toContain('s3cret');
  });

  it('read the CA, certificate and key files for TLS', () => {
    const security = load({
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: '/ca.pem',
      KAFKA_SSL_CERT_FILE: '/cert.pem',
      KAFKA_SSL_KEY_FILE: '/key.pem',
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      KAFKA_SASL_USERNAME: 'chat',
      KAFKA_SASL_PASSWORD: 'pw',
    });
    expect(security.ssl).toEqual({ rejectUnauthorized: true, ca: ['CA PEM'], cert: 'CERT PEM', key: 'KEY PEM' });
    expect(security.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'chat', password: 'pw' });
    expect(load({ KAFKA_SSL: 'true' })).toEqual({ ssl: { rejectUnauthorized: true } });
    expect(load({ KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' }).ssl).toEqual({ rejectUnauthorized: false });
    expect(describeKafkaSecurity(load({ KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' }))).toBe('TLS (certificate not verified)');
  });

  it.each([
    [{ KAFKA_SASL_MECHANISM: 'PLAIN' }, 'KAFKA_SASL_MECHANISM=PLAIN needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD'],
    [{ KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256', KAFKA_SASL_USERNAME: 'chat' }, 'KAFKA_SASL_MECHANISM=SCRAM-SHA-256 needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD'],
    [{ KAFKA_SASL_MECHANISM: 'GSSAPI', KAFKA_SASL_USERNAME: 'a', KAFKA_SASL_PASSWORD: 'b' }, 'KAFKA_SASL_MECHANISM must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512'],
    [{ KAFKA_SASL_USERNAME: 'chat', KAFKA_SASL_PASSWORD: 'pw' }, 'need KAFKA_SASL_MECHANISM'],
    [{ KAFKA_SSL_CA_FILE: '/ca.pem' }, 'KAFKA_SSL_CA_FILE need KAFKA_SSL=true'],
    [{ KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' }, 'KAFKA_SSL_REJECT_UNAUTHORIZED need KAFKA_SSL=true'],
    [{ KAFKA_SSL: 'yes' }, 'KAFKA_SSL must be true or false'],
    [{ KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: '/cert.pem' }, 'KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE go together'],
    [{ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: '/missing.pem' }, "KAFKA_SSL_CA_FILE=/missing.pem cannot be read (ENOENT: no such file, open '/missing.pem')"],
  ])('refuse %j at start, saying why', (env, message) => {
    expect(() => load(env)).toThrow(message);
    expect(() => load(env)).toThrow(/^invalid Kafka security configuration: /);
  });

});
