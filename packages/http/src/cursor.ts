import { createHash } from 'node:crypto';
import { ApiError } from '@chat/contracts';
import { z } from 'zod';
import { pagination } from './pagination.js';

/**
 * Cursor pagination beside CometChat's `page`/`perPage` (beyond CometChat): a list answers
 * `meta.cursor.next`, an opaque token holding the sort key of the page's last item, and
 * `?cursor=<token>` continues strictly after that key. Being a keyset, not an offset, a page fetched
 * with it never repeats or skips an item because items were added earlier in the order meanwhile.
 *
 * The token is base64url JSON: the list's scope (the list's name and a hash of everything that
 * selects or orders its items, path included), the key, and the page number it continues to (shown
 * as `current_page`). A token of another list, or of the same list with other filters, would
 * continue from a key of another order: it is refused, as is anything that is not a token.
 */

/** One value per sort field, in the list's order; the last fields make it unique. */
export type CursorKey = readonly (string | number)[];

/** The `cursor` query parameter, for each list's query schema. */
export const cursorParameter = z.string().max(2048).optional();

const MAX_KEY_FIELDS = 8;

interface Token {
  s: string;
  k: (string | number)[];
  p: number;
}

function refused(problem: string): ApiError {
  return new ApiError('ERR_BAD_REQUEST', `cursor: ${problem}`, { fields: [{ field: 'cursor', problem }] });
}

function scopeOf(list: string, filters: unknown): string {
  return createHash('sha256').update(list).update('\0').update(canonical(filters)).digest('base64url').slice(0, 16);
}

/** JSON with object keys sorted and undefined members left out, so equal filters hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function isKeyPart(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function decode(raw: string): Token {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw refused('not a cursor this API issued');
  }
  const token = parsed as Partial<Token> | null;
  const valid =
    token !== null &&
    typeof token === 'object' &&
    typeof token.s === 'string' &&
    Array.isArray(token.k) &&
    token.k.length > 0 &&
    token.k.length <= MAX_KEY_FIELDS &&
    token.k.every(isKeyPart) &&
    Number.isInteger(token.p) &&
    (token.p as number) >= 1;
  if (!valid) throw refused('not a cursor this API issued');
  return token as Token;
}

/**
 * The cursor side of one list request. `filters` is everything that selects or orders the items
 * (path parameters included), but not `page`, `perPage` or `cursor`.
 */
export class ListCursor {
  private readonly scope: string;
  /** The key to continue after, when the request carried a cursor. */
  readonly after: CursorKey | undefined;
  /** The page this request is: the cursor's, else the `page` asked for. */
  readonly page: number;

  constructor(list: string, filters: unknown, raw: string | undefined, page = 1) {
    this.scope = scopeOf(list, filters);
    if (raw === undefined) {
      this.after = undefined;
      this.page = page;
      return;
    }
    const token = decode(raw);
    if (token.s !== this.scope) throw refused('issued for another list or other filters');
    this.after = token.k;
    this.page = token.p;
  }

  /** The skip of an offset page; 0 when a cursor places the page. */
  offset(perPage: number): number {
    return this.after === undefined ? (this.page - 1) * perPage : 0;
  }

  /** Where the page starts, as a read model's keyset query takes it. */
  position(perPage: number): { after: CursorKey | undefined; skip: number } {
    return { after: this.after, skip: this.offset(perPage) };
  }

  /** `meta.cursor.next`: a token after `last`, or null when this page is the last one. */
  next(last: CursorKey | undefined, more: boolean): string | null {
    if (!more || last === undefined) return null;
    const token: Token = { s: this.scope, k: [...last], p: this.page + 1 };
    return Buffer.from(JSON.stringify(token), 'utf8').toString('base64url');
  }
}

/** Sort direction of each key field: 1 ascending, -1 descending. */
export type KeyOrder = readonly (1 | -1)[];

/** Compares two keys in a list's order (negative when `a` comes first). */
export function compareKeys(order: KeyOrder, a: CursorKey, b: CursorKey): number {
  for (let i = 0; i < order.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const sign = typeof x === typeof y ? (x < y ? -1 : 1) : typeof x === 'number' ? -1 : 1;
    return sign * (order[i] as number);
  }
  return 0;
}

/**
 * A page of a list held in memory and already in its order: the items after the cursor's key (or
 * from the offset page), `perPage` of them, whether more follow, and the token of the next page.
 */
export function pageInMemory<T>(
  items: readonly T[],
  keyOf: (item: T) => CursorKey,
  order: KeyOrder,
  cursor: ListCursor,
  perPage: number,
): { items: T[]; next: string | null } {
  const after = cursor.after;
  const start = after === undefined ? cursor.offset(perPage) : items.findIndex((item) => compareKeys(order, keyOf(item), after) > 0);
  const from = start === -1 ? items.length : start;
  const page = items.slice(from, from + perPage);
  const last = page.at(-1);
  return { items: page, next: cursor.next(last === undefined ? undefined : keyOf(last), from + perPage < items.length) };
}

/** A list's `meta`: CometChat's pagination, and `cursor.next` (null on the last page). */
export function listMeta(total: number, count: number, perPage: number, cursor: ListCursor, next: string | null) {
  return { pagination: pagination(total, count, perPage, cursor.page), cursor: { next } };
}
