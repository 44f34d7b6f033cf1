import { z } from 'zod';

/*
 * The shapes every service's answers share, for the response schemas of the OpenAPI description. A
 * resource is a loose object: the fields it always has are required and typed, and a field a later
 * version adds does not break a client that validates against an older document.
 */

/** CometChat's `meta.pagination` of a page-numbered list. */
export const paginationShape = z.object({
  total: z.number().int().min(0),
  count: z.number().int().min(0),
  per_page: z.number().int().min(0),
  current_page: z.number().int().min(1),
  total_pages: z.number().int().min(1),
});

/** `meta` of a list: page numbers, a cursor to continue, or CometChat's `current`/`next` of cursor lists. */
export const listMetaShape = z.looseObject({
  pagination: paginationShape.optional(),
  cursor: z.looseObject({ next: z.string().nullable().optional() }).optional(),
  current: z.looseObject({ limit: z.number().int(), count: z.number().int().min(0) }).optional(),
});

/** `{ data: <resource> }`: the answer of most operations. */
export function dataOf(resource: z.ZodType): z.ZodType {
  return z.object({ data: resource });
}

/** `{ data: [<resource>…], meta }`: a page of a list. */
export function listOf(item: z.ZodType): z.ZodType {
  return z.object({ data: z.array(item), meta: listMetaShape });
}

/** `{ success, message }`: CometChat's answer to a delete and to one item of a bulk operation. */
export const outcomeShape = z.object({ success: z.boolean(), message: z.string() });

/** `{ data: { success, message } }`. */
export const succeededShape = dataOf(outcomeShape);

/** `{ data: { success: true } }`: an acknowledgement without a message. */
export const acknowledgedShape = dataOf(z.looseObject({ success: z.literal(true) }));

/** A bulk answer: one `{success, message}` per key the caller named. */
export const outcomesByKeyShape = z.record(z.string(), outcomeShape);

/** One record's answer of a data import: the stored resource, or why it was refused. */
export const importOutcomeShape = z.union([
  z.looseObject({ success: z.literal(true), data: z.unknown() }),
  z.looseObject({ success: z.literal(false), error: z.looseObject({ code: z.string(), message: z.string() }) }),
]);

/** A data import's answer: one outcome per record key, in the caller's order. */
export const importAnswerShape = dataOf(z.record(z.string(), importOutcomeShape));
