// How `chatctl rebuild` compares a rebuilt read-model database with the live one (ADR 0056, 0145).

/** The event store's own collections: not a read model, never rebuilt or compared. */
const STORE_COLLECTIONS = /^commits(_heads|_journal|_counters)?$/;

/** JSON with every object's keys sorted: the store may return a document's fields in another order. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * Documents as compared, without their write counters: the projection runtime's `_rev` and the user
 * directory's `rev` (compare-and-set guards) count writes, and a rebuild writes in bigger batches.
 */
const comparable = ({ _rev, rev, ...rest }) => (void _rev, void rev, canonical(rest));

/** A collection's indexes as `name key` lines, sorted; none for a collection that does not exist. */
async function indexesOf(db, name) {
  const indexes = await db
    .collection(name)
    .listIndexes()
    .toArray()
    .catch((error) => {
      if (error?.code === 26) return []; // NamespaceNotFound
      throw error;
    });
  // Key order matters in an index (unlike in a document): the key as listed, not canonical.
  return indexes.map((index) => `${index.name} ${JSON.stringify(index.key)}${index.unique ? ' unique' : ''}`).sort();
}

/**
 * Every read-model collection of `rebuilt` beside the same one in `live`: document counts, the ids whose
 * documents differ (write counters left out), and the indexes only one of them has. `documents` reads a
 * collection as compared (default: every stored document); `showDifferences` prints the first three.
 */
export async function compareDatabases(live, rebuilt, { documents = (db, name) => db.collection(name).find({}).toArray(), showDifferences = false } = {}) {
  const names = (await rebuilt.listCollections().toArray()).map((c) => c.name).filter((name) => !STORE_COLLECTIONS.test(name)).sort();
  const report = [];
  for (const name of names) {
    // A rebuild must leave the same indexes as well as the same documents: the lists read through them.
    const [liveIndexes, rebuiltIndexes] = await Promise.all([indexesOf(live, name), indexesOf(rebuilt, name)]);
    const indexesDiffering = [...new Set([...liveIndexes, ...rebuiltIndexes])].filter((index) => liveIndexes.includes(index) !== rebuiltIndexes.includes(index));
    const load = async (db) => new Map((await documents(db, name)).map((doc) => [String(doc._id), comparable(doc)]));
    const [a, b] = await Promise.all([load(live), load(rebuilt)]);
    const differing = [...new Set([...a.keys(), ...b.keys()])].filter((id) => a.get(id) !== b.get(id));
    if (differing.length > 0 && showDifferences) {
      for (const id of differing.slice(0, 3)) console.error(`${name} ${id}\n  live:    ${a.get(id)}\n  rebuilt: ${b.get(id)}`);
    }
    report.push({ collection: name, live: a.size, rebuilt: b.size, differing, indexesDiffering });
  }
  return report;
}
