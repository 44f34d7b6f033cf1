import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { addressRefusal, guardedLookup, privateAddressPolicy, urlRefusal } from './urlGuard.js';
import type { Resolver } from './urlGuard.js';

const production = privateAddressPolicy('false');
const development = privateAddressPolicy('true');
const testStack = privateAddressPolicy('127.0.0.0/8');

/** Every spelling of an internal address a tenant might try, with what it must be refused as. */
const refused: Array<[url: string, why: RegExp]> = [
  ['http://127.0.0.1/', /loopback/],
  ['http://127.255.255.254:8080/x', /loopback/],
  ['http://2130706433/', /loopback/], // decimal
  ['http://0x7f.1/', /loopback/], // hex, short
  ['http://0x7f000001/', /loopback/],
  ['http://0177.0.0.1/', /loopback/], // octal
  ['http://127.1/', /loopback/], // short
  ['http://127.0.0.1./', /loopback/], // trailing dot
  ['http://%31%32%37.0.0.1/', /loopback/], // percent-encoded
  ['http://[::1]/', /loopback/],
  ['http://[0:0:0:0:0:0:0:1]/', /loopback/],
  ['http://[::ffff:127.0.0.1]/', /loopback/], // IPv4-mapped, dotted
  ['http://[::ffff:7f00:1]:3000/', /loopback/], // IPv4-mapped, hex
  ['http://[::ffff:0:7f00:1]/', /loopback/], // RFC 6145 translated
  ['http://[::127.0.0.1]/', /ipv4Compatible.*127\.0\.0\.1/], // IPv4-compatible
  ['http://[::a9fe:a9fe]/', /ipv4Compatible.*169\.254\.169\.254/],
  ['http://10.0.0.1/', /private/],
  ['http://10.1/', /private/],
  ['http://172.16.5.4/', /private/],
  ['http://192.168.1.1/', /private/],
  ['http://0300.0250.0.1/', /private/], // octal 192.168.0.1
  ['http://[::ffff:10.0.0.1]/', /private/],
  ['http://169.254.169.254/latest/meta-data/', /linkLocal/], // cloud metadata
  ['http://169.254.43518/', /linkLocal/],
  ['http://[::ffff:a9fe:a9fe]/', /linkLocal/],
  ['http://[fe80::1]/', /linkLocal/],
  ['http://[fd00:ec2::254]/', /uniqueLocal/], // AWS metadata over IPv6
  ['http://[fc00::1]/', /uniqueLocal/],
  ['http://100.64.0.1/', /carrierGradeNat/],
  ['http://100.127.255.254/', /carrierGradeNat/],
  ['http://[::ffff:100.64.0.1]/', /carrierGradeNat/],
  ['http://0.0.0.0/', /unspecified/],
  ['http://0/', /unspecified/],
  ['http://[::]/', /unspecified/],
  ['http://255.255.255.255/', /broadcast/],
  ['http://224.0.0.1/', /multicast/],
  ['http://[ff02::1]/', /multicast/],
  ['http://240.0.0.1/', /reserved/],
  ['http://192.0.2.1/', /reserved/],
  ['http://[2001:db8::1]/', /reserved/],
  ['http://[64:ff9b::7f00:1]/', /rfc6052.*127\.0\.0\.1/], // NAT64
  ['http://[64:ff9b::a9fe:a9fe]/', /rfc6052.*169\.254\.169\.254/],
  ['http://[64:ff9b::808:808]/', /rfc6052/], // NAT64 even of a public address: the gateway is internal
  ['http://[64:ff9b:1::a00:1]/', /rfc6052/], // NAT64 local-use /48
  ['http://[2002:7f00:1::]/', /6to4.*127\.0\.0\.1/], // 6to4
  ['http://[2002:a9fe:a9fe::1]/', /6to4.*169\.254\.169\.254/],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', /teredo/], // Teredo
  ['http://[fec0::1]/', /deprecatedSiteLocal/],
  ['http://localhost/', /local name/],
  ['http://LOCALHOST./', /local name/],
  ['http://api.localhost/', /local name/],
  ['http://printer.local/', /local name/],
  ['http://metadata.google.internal/computeMetadata/v1/', /local name/],
  ['http://router.home.arpa/', /local name/],
  ['http://management:3104/v3/apps', /local name/], // no dot: a search-domain name
];

/** Public addresses and names that every deployment must let through. */
const accepted = [
  'http://8.8.8.8/',
  'https://1.1.1.1:8443/hook',
  'http://[2001:4860:4860::8888]/',
  'http://[::ffff:8.8.8.8]/',
  'https://example.com/hook',
  'https://hooks.example.co.uk:8443/a?b=c',
  'http://93.184.216.34:8080/x',
  'https://xn--nxasmq6b.com/',
];

describe('urlRefusal (save time)', () => {
  it.each(refused)('refuses %s in production', (url, why) => {
    expect(urlRefusal(url, production)).toMatch(why);
  });

  it.each(accepted)('accepts %s in production', (url) => {
    expect(urlRefusal(url, production)).toBeNull();
  });

  it.each(refused)('lets %s through when all private addresses are allowed (development)', (url) => {
    expect(urlRefusal(url, development)).toBeNull();
  });

  it('under a list of ranges, allows only addresses in them (and their IPv4-mapped spellings)', () => {
    for (const url of ['http://127.0.0.1:1234/', 'http://127.1/', 'http://2130706433/', 'http://[::ffff:7f00:1]/']) expect(urlRefusal(url, testStack), url).toBeNull();
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/', 'http://[::ffff:a9fe:a9fe]/', 'http://[::1]/', 'http://0.0.0.0/', 'http://localhost/', 'http://[64:ff9b::7f00:1]/', 'http://[2002:7f00:1::]/']) {
      expect(urlRefusal(url, testStack), url).not.toBeNull();
    }
    const both = privateAddressPolicy('10.0.0.0/8, ::1/128');
    expect(urlRefusal('http://10.2.3.4/', both)).toBeNull();
    expect(urlRefusal('http://[::1]/', both)).toBeNull();
    expect(urlRefusal('http://127.0.0.1/', both)).toMatch(/loopback/);
  });

  it('refuses what is not an http(s) URL, and credentials in the URL, whatever the policy', () => {
    for (const policy of [production, development]) {
      expect(urlRefusal('ftp://example.com/x', policy)).toMatch(/only http and https/);
      expect(urlRefusal('javascript:alert(1)', policy)).toMatch(/only http and https/);
      expect(urlRefusal('file:///etc/passwd', policy)).toMatch(/only http and https/);
      expect(urlRefusal('not a url', policy)).toMatch(/absolute/);
      expect(urlRefusal('/relative/path', policy)).toMatch(/absolute/);
      expect(urlRefusal('https://user:pw@example.com/', policy)).toMatch(/credentials/);
    }
  });
});

describe('privateAddressPolicy (TENANT_URLS_ALLOW_PRIVATE)', () => {
  it('reads false, true, empty and CIDR lists, and refuses anything else', () => {
    expect(privateAddressPolicy(undefined)).toEqual({ allow: 'none' });
    expect(privateAddressPolicy('')).toEqual({ allow: 'none' });
    expect(privateAddressPolicy('true')).toEqual({ allow: 'all' });
    expect(privateAddressPolicy('127.0.0.0/8,fd00::/8')).toMatchObject({ allow: 'ranges' });
    expect(() => privateAddressPolicy('yes')).toThrow(/TENANT_URLS_ALLOW_PRIVATE: yes is not a CIDR/);
    expect(() => privateAddressPolicy('127.0.0.1')).toThrow(/not a CIDR/);
  });
});

describe('addressRefusal (resolved addresses)', () => {
  it('classifies what a resolver returns, in every family', () => {
    expect(addressRefusal('127.0.0.1', production)).toMatch(/loopback/);
    expect(addressRefusal('::ffff:169.254.169.254', production)).toMatch(/linkLocal/);
    expect(addressRefusal('fe80::1%eth0', production)).toMatch(/linkLocal/);
    expect(addressRefusal('172.15.0.1', production)).toBeNull();
    expect(addressRefusal('172.32.0.1', production)).toBeNull();
    expect(addressRefusal('2606:4700:4700::1111', production)).toBeNull();
    expect(addressRefusal('not-an-address', production)).toMatch(/not an IP address/);
  });
});

/** A resolver that answers from a table, the way `dns.lookup` does with `all: true`. */
function resolverOf(table: Record<string, string[]>): Resolver {
  return (hostname, _options, callback) => {
    const addresses = table[hostname];
    if (!addresses) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
}

function lookUp(lookup: ReturnType<typeof guardedLookup>, hostname: string, all = false): Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number | undefined }> {
  return new Promise((resolve) => lookup(hostname, { all }, (error, address, family) => resolve({ error, address, family })));
}

describe('guardedLookup (connect time)', () => {
  const resolve = resolverOf({
    'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'rebound.example': ['127.0.0.1'],
    'metadata.example': ['169.254.169.254'],
    'mixed.example': ['93.184.216.34', '10.0.0.7'],
    'mapped.example': ['::ffff:7f00:1'],
  });

  it('passes a name whose every address is public, in the shape net.connect asks for', async () => {
    const lookup = guardedLookup(production, resolve);
    expect(await lookUp(lookup, 'public.example')).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    const all = await lookUp(lookup, 'public.example', true);
    expect(all.error).toBeNull();
    expect(all.address).toHaveLength(2);
  });

  it.each([
    ['rebound.example', /rebound\.example resolves to 127\.0\.0\.1 is a loopback address/],
    ['metadata.example', /linkLocal/],
    ['mixed.example', /10\.0\.0\.7 is a private address/],
    ['mapped.example', /loopback/],
  ])('refuses %s, a name resolving to an internal address', async (hostname, why) => {
    const { error } = await lookUp(guardedLookup(production, resolve), hostname);
    expect(error?.message).toMatch(why);
    expect(error?.code).toBe('EADDRREFUSED');
  });

  it('lets the listed ranges through and passes resolver errors on', async () => {
    expect((await lookUp(guardedLookup(testStack, resolve), 'rebound.example')).error).toBeNull();
    expect((await lookUp(guardedLookup(testStack, resolve), 'metadata.example')).error?.code).toBe('EADDRREFUSED');
    expect((await lookUp(guardedLookup(production, resolve), 'nowhere.example')).error?.code).toBe('ENOTFOUND');
  });
});
