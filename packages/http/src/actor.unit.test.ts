import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { actorOf, correlationIdOf, requestIdOf } from './actor.js';

const withRequestId = (id: string | undefined) => ({ headers: id === undefined ? {} : { 'x-request-id': id } }) as unknown as Request;

describe('request ids a service accepts', () => {
  it('takes a plain id as the correlation id', () => {
    expect(requestIdOf(withRequestId('4f1c2d3e-aaaa-bbbb-cccc-0123456789ab'))).toBe('4f1c2d3e-aaaa-bbbb-cccc-0123456789ab');
    expect(correlationIdOf(withRequestId('client-trace.42:a-b'))).toBe('client-trace.42:a-b');
  });

  it('replaces anything else (markup, spaces, over 64 characters, none) by a fresh id', () => {
    for (const id of ['<script>', 'two words', 'a'.repeat(65), 'line\nbreak', undefined]) {
      expect(requestIdOf(withRequestId(id))).toBe('unknown');
      const correlation = correlationIdOf(withRequestId(id));
      expect(correlation).not.toBe(id);
      expect(correlation).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe('the actor a service accepts', () => {
  const request = (headers: Record<string, string>) => ({ headers }) as unknown as Request;
  const base = { 'x-chat-app-id': 'app', 'x-chat-key-id': 'k1' };

  it("takes an API key's scopes, and a client's auth token only with the token's user", () => {
    expect(actorOf(request({ ...base, 'x-chat-scope': 'fullAccess' }))).toEqual({ appId: 'app', keyId: 'k1', scope: 'fullAccess' });
    expect(actorOf(request({ ...base, 'x-chat-scope': 'authToken', 'x-chat-on-behalf-of': 'Alice' }))).toEqual({ appId: 'app', keyId: 'k1', scope: 'authToken', uid: 'alice' });
    expect(() => actorOf(request({ ...base, 'x-chat-scope': 'authToken' }))).toThrow(/no authenticated caller/);
    expect(() => actorOf(request({ ...base, 'x-chat-scope': 'management' }))).toThrow(/no authenticated caller/);
  });
});
