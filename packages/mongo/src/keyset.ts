import type { Collection, Document, Filter, WithId } from 'mongodb';

/**
 * Keyset pages over a collection: the filter that keeps only documents strictly after a key in a
 * sort order, for cursor pagination (`ListCursor` in @chat/http). The order's last fields must make
 * the key unique, or documents sharing the last key would be skipped.
 */
export type KeysetOrder = readonly (readonly [field: string, direction: 1 | -1])[];

/** `{$or: [{a > x}, {a = x, b > y}, …]}` for the order `[a, b, …]` (`<` where descending). */
export function keysetAfter(order: KeysetOrder, key: readonly (string | number)[]): Record<string, unknown> {
  const branches: Record<string, unknown>[] = [];
  for (let i = 0; i < order.length; i++) {
    const branch: Record<string, unknown> = {};
    for (let j = 0; j < i; j++) branch[(order[j] as KeysetOrder[number])[0]] = key[j];
    const [field, direction] = order[i] as KeysetOrder[number];
    branch[field] = { [direction === 1 ? '$gt' : '$lt']: key[i] };
    branches.push(branch);
  }
  return branches.length === 1 ? (branches[0] as Record<string, unknown>) : { $or: branches };
}

/** The order as a Mongo sort. */
export function keysetSort(order: KeysetOrder): Record<string, 1 | -1> {
  return Object.fromEntries(order.map(([field, direction]) => [field, direction]));
}

/** A document's key in the order (the value of each sort field). */
export function keysetKeyOf(order: KeysetOrder, doc: object): (string | number)[] {
  return order.map(([field]) => {
    const value = (doc as Record<string, unknown>)[field];
    if (typeof value === 'number' || typeof value === 'string') return value;
    // An absent field sorts first (as Mongo sorts null); 0 keeps the key comparable with numbers.
    if (value === undefined || value === null) return 0;
    throw new Error(`keyset field ${field} holds neither a string nor a number`);
  });
}

/** Where a page starts: after a cursor's key, or at an offset (CometChat's `page`). */
export interface PagePosition {
  after: readonly (string | number)[] | undefined;
  skip: number;
}

/**
 * One page of `filter` in `order` with the filter's total. An offset page reads what it read before
 * (whether more follow comes from the total); a keyset page reads one document more to know.
 */
export async function findPage<Doc extends object>(
  collection: Collection<Doc>,
  filter: Filter<Doc>,
  order: KeysetOrder,
  position: PagePosition,
  perPage: number,
  projection?: Document,
): Promise<{ total: number; items: WithId<Doc>[]; more: boolean }> {
  const keyed = position.after === undefined ? filter : ({ $and: [filter, keysetAfter(order, position.after)] } as Filter<Doc>);
  const limit = position.after === undefined ? perPage : perPage + 1;
  const [total, found] = await Promise.all([
    collection.countDocuments(filter),
    collection.find(keyed, projection ? { projection } : {}).sort(keysetSort(order)).skip(position.skip).limit(limit).toArray(),
  ]);
  const more = position.after === undefined ? position.skip + found.length < total : found.length > perPage;
  return { total, items: found.slice(0, perPage), more };
}
