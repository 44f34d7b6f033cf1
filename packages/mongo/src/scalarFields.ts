/** The `$comment` prefix the FerretDB runner reads (infra/ferretdb/patches/0003-scalar-fields-pushdown.patch). */
export const SCALAR_FIELDS_HINT = 'scalars:';

const PLAIN_FIELD = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * The part of a filter that lets this platform's FerretDB build read by an index on `fields` (ADR 0074,
 * addendum of 2026-11-29): on its SQLite backend only `_id` equality and `$in` are fetched by key
 * (ADR 0006, 0011), anything else decodes every document of the collection, every tenant's. With this
 * `$comment` the runner also compares the named fields' string equalities in SQL, where an index whose
 * leading fields they are serves them. The caller vouches that every stored value of each field is a
 * scalar: MongoDB matches an array field by its elements, the runner's SQL would not. MongoDB itself
 * ignores the comment (its indexes serve these filters anyway), and the store still applies the whole
 * filter, so the result is the same with or without it.
 */
export function byScalarFields(...fields: readonly string[]): { $comment: string } {
  const odd = fields.find((field) => !PLAIN_FIELD.test(field));
  if (fields.length === 0 || odd !== undefined) throw new Error(`byScalarFields: "${odd ?? ''}" is not a plain top-level field name`);
  return { $comment: `${SCALAR_FIELDS_HINT}${fields.join(',')}` };
}
