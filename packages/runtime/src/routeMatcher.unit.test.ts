import { describe, expect, it } from 'vitest';
import { routeMatcher } from './routeMatcher.js';

describe('routeMatcher', () => {
  it('tells the named operations’ requests by method and path, query strings aside', () => {
    const sends = routeMatcher(['send-message', 'send-thread-message', 'send-bot-message']);
    expect(sends('POST', '/v3/messages')).toBe(true);
    expect(sends('POST', '/v3/messages?x=1')).toBe(true);
    expect(sends('POST', '/v3/messages/42/thread')).toBe(true);
    expect(sends('POST', '/v3/bots/helper/messages')).toBe(true);
    expect(sends('GET', '/v3/messages')).toBe(false);
    expect(sends('POST', '/v3/data_import/messages')).toBe(false);
    expect(sends('POST', '/v3/messages/42/reactions/x')).toBe(false);
    expect(sends('POST', '/v3/messages/42/thread/extra')).toBe(false);
  });

  it('refuses an operation the catalogue does not have', () => {
    expect(() => routeMatcher(['send-message', 'no-such-operation'])).toThrow(/unknown operations/);
  });
});
