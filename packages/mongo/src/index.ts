export { connectMongo, isDuplicateKeyError } from './connect.js';
export type { MongoConnection } from './connect.js';
export { MongoCommitStore } from './commitStore.js';
export { GuardedProjectionWriter, ensureIndexes, stripStoredFields } from './projection.js';
export type { IndexSpec, Projection, Stored, StoredProjectionFields } from './projection.js';
export { readWithPatience } from './patience.js';
export { MAX_STATEMENTS_PER_COMMAND, bulkWriteChunked, chunk } from './bulkWrite.js';
export type { BulkWriteCounts } from './bulkWrite.js';
