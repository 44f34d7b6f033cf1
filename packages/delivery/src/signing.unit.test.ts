import { describe, expect, it } from 'vitest';
import { newWebhookSecret, webhookSignature } from './signing.js';

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

