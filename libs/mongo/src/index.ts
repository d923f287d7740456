/** MongoDB access shared by the subgraphs: one client per process, integer id sequences, index creation, error helpers. */
export { connectMongo, type MongoHandle } from './connection';
export { nextSequenceValue, COUNTERS_COLLECTION } from './counters';
export { isDuplicateKeyError, duplicateKeyField } from './mongo-errors';
export { ensureIndexes, type IndexSpec } from './indexes';
