import { describe, expect, it } from 'vitest';
import { SecretBox, newWebhookSecret, webhookSignature } from './webhooks.js';

describe('webhook signatures (Standard Webhooks)', () => {
  it('matches the specification’s published example', () => {
    const signature = webhookSignature(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('changes with any of id, timestamp, body and secret', () => {
    const secret = newWebhookSecret();
    const base = webhookSignature(secret, 'id', 1, 'body');
    expect(webhookSignature(secret, 'id2', 1, 'body')).not.toBe(base);
    expect(webhookSignature(secret, 'id', 2, 'body')).not.toBe(base);
    expect(webhookSignature(secret, 'id', 1, 'body!')).not.toBe(base);
    expect(webhookSignature(newWebhookSecret(), 'id', 1, 'body')).not.toBe(base);
  });
});

describe('SecretBox', () => {
  const box = new SecretBox('ab'.repeat(32));

  it('opens what it sealed, and seals the same text differently each time', () => {
    const sealed = box.seal('whsec_abc');
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed);
  });

  it('refuses a tampered box and a box sealed with another key', () => {
    const sealed = Buffer.from(box.seal('secret'), 'base64');
    sealed[sealed.length - 1]! ^= 1;
    expect(() => box.open(sealed.toString('base64'))).toThrow();
    expect(() => new SecretBox('cd'.repeat(32)).open(box.seal('secret'))).toThrow();
    expect(() => new SecretBox('short')).toThrow(/64 hex/);
  });
});
