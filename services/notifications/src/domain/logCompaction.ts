/**
 * How a log document stores its entries (ADR 0059): what every entry of the document holds alike
 * (the message's fields, the recipient's in a one-on-one message) once, as `shared`; and each entry's
 * payload as the changes from the document's first payload (a group message's payloads differ in the
 * recipient only). The store's cost of a write grows with its bytes; the API answers the entries
 * expanded, exactly as they were given.
 */

type Json = unknown;
type Entry = Record<string, Json>;

/**
 * One change from the base payload: a path and its value, or the path alone for a key the payload
 * lacks (an object, not a pair: FerretDB stores no array directly inside an array).
 */
export interface PayloadChange {
  path: string[];
  value?: Json;
}

export interface CompactEntries {
  /** Fields every entry holds with the same value (absent when the document has one entry). */
  shared?: Entry;
  /** The first payload of the document, which the others are stored against. */
  basePayload?: Json;
  /** Each entry without the shared fields; `payloadChanges` in place of a payload other than the base. */
  entries: Entry[];
}

const PAYLOAD = 'payload';
const PAYLOAD_CHANGES = 'payloadChanges';

function isPlainObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: Json, b: Json): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The changes that turn `base` into `value`: a whole value where either is not a plain object. Two
 * plain objects are compared key by key, not serialised first (ADR 0096): a group message's payloads
 * share their details object, which the identity check passes at once, and differ in one uid.
 */
function changesFrom(base: Json, value: Json, path: string[] = [], into: PayloadChange[] = []): PayloadChange[] {
  if (base === value) return into;
  if (!isPlainObject(base) || !isPlainObject(value)) {
    if (!sameJson(base, value)) into.push({ path, value });
    return into;
  }
  for (const key of Object.keys(base)) if (!(key in value)) into.push({ path: [...path, key] });
  for (const [key, v] of Object.entries(value)) {
    if (key in base) changesFrom(base[key], v, [...path, key], into);
    else into.push({ path: [...path, key], value: v });
  }
  return into;
}

function applied(base: Json, changes: readonly PayloadChange[]): Json {
  let result: Json = structuredClone(base);
  for (const { path, ...change } of changes) {
    if (path.length === 0) {
      result = structuredClone(change.value);
      continue;
    }
    let at = result as Record<string, Json>;
    for (const key of path.slice(0, -1)) at = at[key] as Record<string, Json>;
    const last = path.at(-1)!;
    if ('value' in change) at[last] = structuredClone(change.value);
    else delete at[last];
  }
  return result;
}

/** A document's entries stored compactly; `expanded` gives them back as they were. */
export function compacted(given: readonly object[]): CompactEntries {
  const entries = given as readonly Entry[];
  if (entries.length < 2) return { entries: [...entries] };
  const shared: Entry = {};
  const [first, ...rest] = entries;
  for (const [key, value] of Object.entries(first!)) {
    if (key === PAYLOAD || key === '_id') continue;
    if (rest.every((e) => key in e && sameJson(e[key], value))) shared[key] = value;
  }
  const withPayload = entries.find((e) => e[PAYLOAD] !== undefined);
  const basePayload = withPayload?.[PAYLOAD];
  const stored = entries.map((entry) => {
    const own: Entry = {};
    for (const [key, value] of Object.entries(entry)) {
      if (key in shared) continue;
      if (key === PAYLOAD && entry === withPayload) continue;
      if (key === PAYLOAD && value !== undefined) own[PAYLOAD_CHANGES] = changesFrom(basePayload, value);
      else own[key] = value;
    }
    return own;
  });
  return { shared, ...(withPayload ? { basePayload, entries: stored.map((e, i) => (entries[i] === withPayload ? { ...e, [PAYLOAD_CHANGES]: [] } : e)) } : { entries: stored }) };
}

/** The entries of a compact document, each as it was given (a document from before ADR 0059 as it is). */
export function expanded<E extends object>(doc: CompactEntries): E[] {
  const { shared, basePayload } = doc;
  if (!shared) return doc.entries as E[];
  return doc.entries.map((own) => {
    const entry: Entry = { ...shared };
    for (const [key, value] of Object.entries(own)) {
      if (key === PAYLOAD_CHANGES) entry[PAYLOAD] = applied(basePayload, value as PayloadChange[]);
      else entry[key] = value;
    }
    return entry as E;
  });
}
