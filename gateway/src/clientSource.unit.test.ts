import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ProxyAddresses, clientSource } from './clientSource.js';

const request = (remoteAddress: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('clientSource', () => {
  const proxies = new ProxyAddresses(['10.0.0.7', '10.0.0.8']);

  it('is the peer address when the peer is no trusted proxy, whatever X-Forwarded-For says', () => {
    expect(clientSource(request('203.0.113.5', '198.51.100.1'), proxies)).toBe('203.0.113.5');
    expect(clientSource(request('::ffff:203.0.113.5'), new ProxyAddresses([]))).toBe('203.0.113.5');
  });

  it('behind trusted proxies: the rightmost hop that is not one of them', () => {
    expect(clientSource(request('10.0.0.7', '198.51.100.1'), proxies)).toBe('198.51.100.1');
    // What the client wrote itself (left) is ignored; the proxies appended the right end.
    expect(clientSource(request('::ffff:10.0.0.7', '1.2.3.4, 198.51.100.1, 10.0.0.8'), proxies)).toBe('198.51.100.1');
  });

  it('takes ranges: a proxy anywhere in 10.0.0.0/8', () => {
    expect(clientSource(request('10.42.1.9', '198.51.100.1, 10.42.7.3'), new ProxyAddresses(['10.0.0.0/8']))).toBe('198.51.100.1');
  });

  it('falls back to the peer when the forwarded chain is missing or not addresses', () => {
    expect(clientSource(request('10.0.0.7'), proxies)).toBe('10.0.0.7');
    expect(clientSource(request('10.0.0.7', 'unknown'), proxies)).toBe('10.0.0.7');
    expect(clientSource(request('10.0.0.7', '10.0.0.8'), proxies)).toBe('10.0.0.7');
  });
});
