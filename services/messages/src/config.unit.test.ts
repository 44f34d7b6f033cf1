import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

const key = (byte: string) => byte.repeat(32);

describe('messages configuration', () => {
  it('needs MESSAGES_SECRETS_KEY, a keyring of 64-hex keys', () => {
    expect(() => loadConfig({})).toThrow(/messages: invalid configuration: MESSAGES_SECRETS_KEY/);
    expect(() => loadConfig({ MESSAGES_SECRETS_KEY: 'replace-me-with-64-hex-characters' })).toThrow(/MESSAGES_SECRETS_KEY: must be one or more comma-separated keys/);
    expect(loadConfig({ MESSAGES_SECRETS_KEY: key('ab') }).secretsKey).toBe(key('ab'));
    expect(loadConfig({ MESSAGES_SECRETS_KEY: `${key('cd')},${key('ab')}` }).secretsKey).toBe(`${key('cd')},${key('ab')}`);
  });
});
