import type { z } from 'zod';
import { parseWith } from './validation.js';

/**
 * Clients serialise an unset filter as an empty value (`?searchKey=&tags=`), so an empty value means
 * "not given" on every list, whatever the parameter. A repeated parameter keeps its non-empty values.
 */
export function withoutBlankValues(query: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof query !== 'object' || query === null) return out;
  for (const [name, value] of Object.entries(query)) {
    if (typeof value === 'string') {
      if (value.trim() !== '') out[name] = value;
    } else if (Array.isArray(value)) {
      const given = value.filter((item) => typeof item !== 'string' || item.trim() !== '');
      if (given.length > 0) out[name] = given;
    } else if (value !== undefined) out[name] = value;
  }
  return out;
}

/** A query string parsed with its schema: empty values unset, the first problem a 400 naming the parameter. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  return parseWith(schema, withoutBlankValues(query));
}
