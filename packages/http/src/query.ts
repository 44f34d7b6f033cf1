import { ApiError } from '@chat/contracts';
import { z } from 'zod';
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

/**
 * A parameter the list does not know is refused (400 naming it), never ignored: a misspelt filter
 * (`?unred=true`) would otherwise answer with every item as if it had been applied.
 */
function refuseUnknown(schema: z.ZodType, given: Record<string, unknown>): void {
  if (!(schema instanceof z.ZodObject)) return;
  const known = Object.keys(schema.shape);
  const unknown = Object.keys(given).filter((name) => !known.includes(name));
  const [first] = unknown;
  if (first === undefined) return;
  throw new ApiError('ERR_BAD_REQUEST', `${first}: not a parameter of this list (it takes ${known.join(', ')})`, {
    fields: unknown.slice(0, 10).map((field) => ({ field, problem: 'unknown parameter' })),
  });
}

/** A query string parsed with its schema: empty values unset, unknown names and the first problem a 400 naming the parameter. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const given = withoutBlankValues(query);
  refuseUnknown(schema, given);
  return parseWith(schema, given);
}
