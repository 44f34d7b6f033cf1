import { isCallsRoute } from '@chat/contracts';
import type { RouteSpec } from '@chat/contracts';

/** What the Host header says about the request (DESIGN §2). */
export type HostTenancy =
  | { kind: 'chat'; appId: string }
  | { kind: 'calls'; appId: string }
  | { kind: 'management' }
  /** localhost, an IP, or any other name: tenant from the `appId` header, both APIs on one port. */
  | { kind: 'plain' }
  | { kind: 'foreign-region'; region: string };

const MANAGEMENT_LABEL = 'apimgmt';

/**
 * `{appId}.api-{region}.{domain}` (chat), `{appId}.call-{region}.{domain}` (calls),
 * `apimgmt.{domain}` (management). Host names are case-insensitive; the port is ignored.
 */
export function parseHost(host: string | undefined, domain: string, region: string): HostTenancy {
  if (!host) return { kind: 'plain' };
  let name = host.toLowerCase();
  if (name.charCodeAt(0) === 91 /* [ IPv6 literal */) return { kind: 'plain' };
  const colon = name.indexOf(':');
  if (colon !== -1) name = name.slice(0, colon);
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name.length <= domain.length + 1 || !name.endsWith(domain) || name.charCodeAt(name.length - domain.length - 1) !== 46) {
    return { kind: 'plain' };
  }
  const sub = name.slice(0, name.length - domain.length - 1);
  if (sub === MANAGEMENT_LABEL) return { kind: 'management' };
  const dot = sub.indexOf('.');
  if (dot <= 0 || sub.indexOf('.', dot + 1) !== -1) return { kind: 'plain' };
  const appId = sub.slice(0, dot);
  const service = sub.slice(dot + 1);
  const dash = service.indexOf('-');
  if (dash === -1) return { kind: 'plain' };
  const api = service.slice(0, dash);
  const hostRegion = service.slice(dash + 1);
  if (api !== 'api' && api !== 'call') return { kind: 'plain' };
  if (hostRegion !== region) return { kind: 'foreign-region', region: hostRegion };
  return api === 'api' ? { kind: 'chat', appId } : { kind: 'calls', appId };
}

/** The chat host serves the chat API, the calls host the calls API, a plain host every API. */
export function fitsHost(route: RouteSpec, tenancy: HostTenancy): boolean {
  switch (tenancy.kind) {
    case 'plain':
      return true;
    case 'chat':
      return route.api === 'chat' && !isCallsRoute(route);
    case 'calls':
      return isCallsRoute(route);
    case 'management':
    case 'foreign-region':
      return route.api === 'management';
    default: {
      const unreachable: never = tenancy;
      throw new Error(`unknown host kind ${JSON.stringify(unreachable)}`);
    }
  }
}
