import { describe, expect, it } from 'vitest';
import { isPrivateAddress, newWebhookSecret, webhookSignature, webhookUrlRefusal } from './webhooks.js';

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

describe('webhook URLs', () => {
  it('accepts public http(s) URLs and refuses other schemes and embedded credentials', () => {
    expect(webhookUrlRefusal('https://example.com/hook', false)).toBeNull();
    expect(webhookUrlRefusal('http://93.184.216.34:8080/x', false)).toBeNull();
    expect(webhookUrlRefusal('ftp://example.com/x', false)).toMatch(/http and https/);
    expect(webhookUrlRefusal('not a url', false)).toMatch(/absolute/);
    expect(webhookUrlRefusal('https://user:pw@example.com/', true)).toMatch(/credentials/);
  });

  it('refuses loopback, link-local and private targets unless allowed', () => {
    for (const url of ['http://127.0.0.1/', 'http://localhost:3000/', 'http://10.1.2.3/', 'http://169.254.169.254/latest', 'http://[::1]/', 'http://192.168.0.1/', 'http://172.20.0.1/', 'http://[fd00::1]/']) {
      expect(webhookUrlRefusal(url, false), url).toMatch(/private/);
      expect(webhookUrlRefusal(url, true), url).toBeNull();
    }
  });

  it('classifies addresses', () => {
    expect(isPrivateAddress('172.15.0.1')).toBe(false);
    expect(isPrivateAddress('172.16.0.1')).toBe(true);
    expect(isPrivateAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('2001:4860::8888')).toBe(false);
    expect(isPrivateAddress('fe80::1')).toBe(true);
  });
});
