import { INTERNAL_HEADER_PREFIX } from '@chat/contracts';

/** RFC 9110 token characters: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A field value: visible characters, spaces and tabs inside, none at either end; no CR, LF or NUL. */
const FIELD_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t \x21-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

/** Headers that describe one connection or the message framing: the client sets them, never a tenant. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect']);

/**
 * Why a tenant-configured header is refused, or null. Refused: names that are not HTTP tokens,
 * values that are not field values, the platform's own identity headers (`x-chat-*`, which services
 * trust from the gateway: a tenant URL on the platform's network would be called as the gateway),
 * and hop-by-hop or proxy headers.
 */
export function tenantHeaderRefusal(name: string, value: string): string | null {
  if (!TOKEN.test(name)) return 'is not a valid header name';
  const lower = name.toLowerCase();
  if (lower.startsWith(INTERNAL_HEADER_PREFIX)) return `${INTERNAL_HEADER_PREFIX}* headers are the platform's own`;
  if (HOP_BY_HOP.has(lower) || lower.startsWith('proxy-')) return 'is a hop-by-hop or proxy header';
  if (!FIELD_VALUE.test(value)) return 'has a value that is not a valid header value';
  return null;
}

/** The headers that may be sent: refused ones (saved before they were refused) are left out. */
export function usableTenantHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name, value]) => tenantHeaderRefusal(name, value) === null));
}
