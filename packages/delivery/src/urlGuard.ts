import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupAllOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Which non-public addresses a deployment lets tenant URLs reach (`TENANT_URLS_ALLOW_PRIVATE`):
 * none (production), all of them (development), or only the listed CIDR ranges (the test stack
 * allows `127.0.0.0/8`, so everything else internal is still refused there).
 */
export type PrivateAddressPolicy = { allow: 'none' } | { allow: 'all' } | { allow: 'ranges'; ranges: ReadonlyArray<[Address, number]> };

/** Reads the switch: `false`, `true`, or a comma-separated list of CIDRs; anything else throws. */
export function privateAddressPolicy(setting: string | undefined): PrivateAddressPolicy {
  const value = (setting ?? '').trim();
  if (value === '' || value === 'false') return { allow: 'none' };
  if (value === 'true') return { allow: 'all' };
  const ranges = value.split(',').map((part) => {
    const cidr = part.trim();
    if (!ipaddr.isValidCIDR(cidr)) throw new Error(`TENANT_URLS_ALLOW_PRIVATE: ${cidr} is not a CIDR range (use false, true or e.g. 127.0.0.0/8)`);
    return ipaddr.parseCIDR(cidr);
  });
  return { allow: 'ranges', ranges };
}

/** Where an IPv6 range carries an IPv4 address, and how to read it back out. */
function embeddedV4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const p = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return v4(p[6]!, p[7]!);
    case 'rfc6052': // NAT64 64:ff9b::a.b.c.d (the /48 local-use prefix is refused whatever it carries)
      return p[2] === 0 ? v4(p[6]!, p[7]!) : null;
    case '6to4': // 2002:aabb:ccdd::/48
      return v4(p[1]!, p[2]!);
    case 'teredo': // the client's address, obfuscated in the last 32 bits
      return v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff);
    default:
      // IPv4-compatible ::a.b.c.d (deprecated; ipaddr.js calls it unicast): all of ::/96 but :: and ::1.
      return p.slice(0, 6).every((part) => part === 0) && range === 'unicast' ? v4(p[6]!, p[7]!) : null;
  }
}

/** Ranges that only re-wrap an IPv4 address: the embedded address is what the connection reaches. */
const UNWRAPPED = new Set(['ipv4Mapped', 'rfc6145']);

/**
 * Why an IP address is refused under a policy, or null when it may be reached. Only what
 * ipaddr.js classifies as `unicast` passes; an IPv4-mapped address is judged by the IPv4 address it
 * carries; translation prefixes (NAT64, 6to4, Teredo, IPv4-compatible) are refused outright, their
 * embedded address named in the reason.
 */
export function addressRefusal(text: string, policy: PrivateAddressPolicy): string | null {
  const bare = text.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return `${text} is not an IP address`;
  const parsed = ipaddr.parse(bare);
  if (policy.allow === 'all') return null;
  let address: Address = parsed;
  let range: string = parsed.range();
  let carried: ipaddr.IPv4 | null = null;
  if (parsed.kind() === 'ipv6') {
    carried = embeddedV4(parsed as ipaddr.IPv6, range);
    if (carried && UNWRAPPED.has(range)) {
      address = carried;
      range = carried.range();
      carried = null;
    } else if (carried) range = range === 'unicast' ? 'ipv4Compatible' : range;
  }
  if (range === 'unicast') return null;
  if (policy.allow === 'ranges' && policy.ranges.some((cidr) => address.kind() === cidr[0].kind() && address.match(cidr))) return null;
  const via = carried ? `, carrying ${carried.toString()} (${carried.range()})` : '';
  return `${text} is a ${range} address${via}, which tenant URLs may not reach`;
}

/** Names that only mean something inside a network; a name without a dot is resolved through search domains. */
function localName(host: string): boolean {
  if (!host.includes('.')) return true;
  return host === 'localhost' || ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'].some((suffix) => host.endsWith(suffix));
}

/**
 * Why a tenant-supplied URL is refused, or null: only absolute http(s) URLs without credentials,
 * whose host is neither a refused address (in any spelling: the WHATWG parser turns `2130706433`,
 * `0x7f.1`, `0177.0.0.1` and `127.1` into `127.0.0.1`, which is then classified) nor a local name.
 * A public name may still resolve to an internal address: `guardedLookup` catches that when connecting.
 */
export function urlRefusal(raw: string, policy: PrivateAddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs are allowed (got ${url.protocol})`;
  if (url.username || url.password) return 'credentials do not belong in the URL';
  if (policy.allow === 'all') return null;
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (host.startsWith('[') || ipaddr.IPv4.isValidFourPartDecimal(host)) return addressRefusal(host, policy);
  if (localName(host)) return `${host} is a local name, which tenant URLs may not reach`;
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A `lookup` for node:net that resolves every address of a name and refuses the connection when any
 * of them is refused, so a public name pointed at an internal address (DNS rebinding) never connects:
 * the address checked is the address connected to.
 */
export function guardedLookup(policy: PrivateAddressPolicy, resolve: Resolver = dnsLookup) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    resolve(hostname, { ...(typeof options.family === 'number' ? { family: options.family } : {}), all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const refusal = addressRefusal(address, policy);
        if (refusal) return callback(Object.assign(new Error(`${hostname} resolves to ${refusal}`), { code: 'EADDRREFUSED' }), []);
      }
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}
