import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

/** The proxies whose X-Forwarded-For is believed: addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`). */
export class ProxyAddresses {
  private readonly list = new BlockList();
  readonly size: number;

  /** Throws on an entry that is neither an address nor a range. */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address = '', bits, extra] = entry.split('/');
      const family = isIP(address);
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (family === 0 || extra !== undefined) throw new Error(`${entry} is not an IP address or CIDR range`);
      if (bits === undefined) this.list.addAddress(address, type);
      else {
        const prefix = Number(bits);
        if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`${entry} has no valid prefix length`);
        this.list.addSubnet(address, prefix, type);
      }
    }
    this.size = entries.length;
  }

  has(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client: dual-stack sockets report IPv4 peers mapped. */
export function normaliseAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * The address a request is counted against when it fails to authenticate. `X-Forwarded-For` is
 * believed only from a configured proxy, and then only its right end: each trusted proxy appends the
 * address it saw, so the rightmost hop that is not one of ours was written by one of ours, while
 * everything left of it is the client's to invent.
 */
export function clientSource(req: IncomingMessage, trustedProxies: ProxyAddresses): string {
  const peer = normaliseAddress(req.socket.remoteAddress ?? 'unknown');
  if (trustedProxies.size === 0 || !trustedProxies.has(peer)) return peer;
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded !== 'string') return peer;
  const hops = forwarded.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normaliseAddress(hops[i]!.trim());
    if (isIP(hop) === 0) return peer;
    if (!trustedProxies.has(hop)) return hop;
  }
  return peer;
}
