/** MongoDB access shared by the subgraphs: one client per process, integer id sequences, index creation, error helpers, versioned writes. */
export {
  connectMongo,
  unsafeSettings,
  UnsafeMongoConfiguration,
  type MongoHandle,
  type ConnectOptions,
} from './connection';
export {
  nextSequenceValue,
  reserveSequenceUpTo,
  ID_CLAIMS_COLLECTION,
  ID_CLAIMS_INDEX,
  ID_BLOCK_SIZE,
} from './counters';
export {
  isDuplicateKeyError,
  duplicateKeyField,
  isDatabaseUnavailableError,
  isBusyError,
  isTimeLimitError,
  writeMayHaveApplied,
  databaseAppError,
  DATABASE_RETRY_AFTER_SECONDS,
} from './mongo-errors';
export { DeletionMarks, DELETION_MARKS_COLLECTION, deletedAccount, type DeletedRecord } from './deletion-marks';
export { ensureIndexes, indexName, listingIndexes, missingIndexes, namedIndexes, type IndexSpec } from './indexes';
export { findByIds } from './find-by-ids';
export {
  writeVersioned,
  updateVersioned,
  deleteVersioned,
  versionOf,
  atVersion,
  VERSION_CLAIMS_COLLECTION,
  VERSION_CLAIMS_TTL_INDEX,
  CLAIM_RETENTION_MS,
  type Versioned,
  type VersionClaim,
  type VersionedWrite,
  type VersionedCollection,
  type VersionedOptions,
  type Settled,
} from './version-claims';
export { insertWithinDeadline } from './write-steps';
export { claimRetention, sweepExpiredClaims, type ClaimRetention } from './claim-retention';
export {
  RecordRepository,
  SequencedCollection,
  type VersionedRecord,
  type RecordChanges,
  type RecordListPlan,
} from './record-repository';
export { monitorMongo } from './mongo-metrics';
export {
  EventOutbox,
  EVENT_OUTBOX_COLLECTION,
  type CommitCheck,
  type EventPublisher,
  type OutboxEntry,
  type PendingEvent,
  type WriteEvent,
} from './event-outbox';
export { EventRelay, type EventRelayOptions, type EventTransport, type PublishedEvent } from './event-relay';
export {
  trackDataAccess,
  idsOfFilter,
  type DataAccessHooks,
  type DataAccessTrackingOptions,
} from './data-access-tracking';
