import { describe, expect, it } from 'vitest';
import { parseHost } from './tenancy.js';

const parse = (host: string | undefined) => parseHost(host, 'chat.localhost', 'us');

describe('parseHost', () => {
  it('reads the app from a chat host', () => {
    expect(parse('abc123.api-us.chat.localhost')).toEqual({ kind: 'chat', appId: 'abc123' });
    expect(parse('ABC123.API-US.Chat.Localhost:3000')).toEqual({ kind: 'chat', appId: 'abc123' });
    expect(parse('abc123.api-us.chat.localhost.')).toEqual({ kind: 'chat', appId: 'abc123' });
  });

  it('recognises the management and calls hosts', () => {
    expect(parse('apimgmt.chat.localhost')).toEqual({ kind: 'management' });
    expect(parse('apimgmt.chat.localhost:8080')).toEqual({ kind: 'management' });
    expect(parse('abc.call-us.chat.localhost')).toEqual({ kind: 'calls', appId: 'abc' });
  });

  it('refuses hosts naming another region', () => {
    expect(parse('abc.api-eu.chat.localhost')).toEqual({ kind: 'foreign-region', region: 'eu' });
    expect(parse('abc.call-in.chat.localhost')).toEqual({ kind: 'foreign-region', region: 'in' });
  });

  it('treats every other host as plain (tenant from the appId header)', () => {
    for (const host of [
      undefined,
      '',
      'localhost',
      'localhost:3000',
      '127.0.0.1:3000',
      '[::1]:3000',
      'chat.localhost',
      'notchat.localhost',
      'abc.api-us.otherchat.localhost',
      'abc.api-us.example.com',
      'abc.web-us.chat.localhost',
      'a.b.api-us.chat.localhost',
      '.api-us.chat.localhost',
      'abc.api.chat.localhost',
    ]) {
      expect(parse(host), String(host)).toEqual({ kind: 'plain' });
    }
  });
});
