/**
 * The one classification of database errors: a unique index refusing a write (duplicate key), and the database
 * being down, unreachable or timing out. `databaseAppError` turns either into the AppError every subgraph answers
 * with (CONFLICT, SERVICE_UNAVAILABLE + Retry-After), without driver text; anything else is not the database's to say.
 */
import {
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { AppError } from '@platform/errors';

/** MongoDB's duplicate-key codes (11001 and 12582 are older servers' spellings of 11000). */
const DUPLICATE_KEY_CODES = new Set([11000, 11001, 12582]);

/**
 * FerretDB v1 (PostgreSQL backend) reports an insert that a unique index refuses as 11000, but an update or
 * findAndModify refused by one as InternalError (code 1) carrying PostgreSQL's unique_violation (SQLSTATE 23505).
 */
const FERRETDB_UNIQUE_VIOLATION = /\(SQLSTATE 23505\)$/;

export const isDuplicateKeyError = (error: unknown): error is MongoServerError =>
  error instanceof MongoServerError &&
  (DUPLICATE_KEY_CODES.has(Number(error.code)) ||
    (error.code === 1 && FERRETDB_UNIQUE_VIOLATION.test(error.message)));

/** The field of a unique index a duplicate-key error names, from keyPattern or, failing that, the index name. */
export function duplicateKeyField(error: MongoServerError): string | undefined {
  const pattern = (error as { keyPattern?: Record<string, unknown> }).keyPattern;
  if (pattern) return Object.keys(pattern)[0];
  const match = /index: (\w+?)_/.exec(error.message);
  return match?.[1];
}

/**
 * Server codes that mean "this server cannot serve now" (the driver's retryable-read set: host unreachable or not
 * found, network timeout, shutdown, stepdown, not primary, exceeded time limit, majority read not yet available),
 * plus MaxTimeMSExpired.
 */
const UNAVAILABLE_CODES = new Set([6, 7, 50, 89, 91, 134, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

/** Labels the driver or server put on errors that a later attempt (against a recovered server) may not meet. */
const UNAVAILABLE_LABELS = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.ResetPool,
  MongoErrorLabel.PoolRequestedRetry,
  MongoErrorLabel.InterruptInUseConnections,
  MongoErrorLabel.SystemOverloadedError,
  MongoErrorLabel.RetryableError,
];

/** MongoDB's WriteConflict (112) and LockTimeout (24): the write was not applied; the server cannot serve it now. */
const BUSY_CODES = new Set([24, 112]);

export const isBusyError = (error: unknown): boolean =>
  error instanceof MongoServerError && BUSY_CODES.has(Number(error.code));

/**
 * FerretDB v1 answers a findAndModify that ran out of its maxTimeMS as InternalError (code 1) with Go's "context
 * deadline exceeded" (its find says MaxTimeMSExpired, 50, as MongoDB does for every command).
 */
const FERRETDB_TIME_LIMIT = /context deadline exceeded/;

/** The server stopped the command at its maxTimeMS: it was not applied. */
export const isTimeLimitError = (error: unknown): boolean =>
  error instanceof MongoServerError &&
  (error.code === 50 || (error.code === 1 && FERRETDB_TIME_LIMIT.test(error.message)));

/**
 * True when the database is down, unreachable or too slow: network errors (MongoNetworkTimeoutError and
 * MongoPoolClearedError are MongoNetworkErrors), no server selectable, a closed client or server, a CSOT timeout, or
 * a server error whose code or label says the server cannot serve now.
 */
export function isDatabaseUnavailableError(error: unknown): boolean {
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoServerClosedError
  )
    return true;
  if (!(error instanceof MongoError)) return false;
  if (typeof error.code === 'number' && UNAVAILABLE_CODES.has(error.code)) return true;
  if (isTimeLimitError(error) || isBusyError(error)) return true;
  return UNAVAILABLE_LABELS.some((label) => error.hasErrorLabel(label));
}

/**
 * Whether a failed single-document write may still have been applied (ADR 0020). No when the server answered with an
 * error for the command (a single-document write is atomic: an error answer means it was not applied; a write-concern
 * error is the exception, the write is applied on the primary), or when the command never left (no server selectable,
 * the pool cleared or the connection failed before its handshake, a closed client), or when the error is not the
 * driver's. Yes for every other driver error: the connection broke or timed out with the command sent, and only a read
 * after its commit bound can tell. (Measured with driver 7.9: a killed server's `connect ECONNREFUSED` comes as a
 * MongoNetworkError with those labels.)
 */
export function writeMayHaveApplied(error: unknown): boolean {
  // Not the driver's (an AppError of a cascade, a bug): thrown before anything was sent.
  if (!(error instanceof MongoError)) return false;
  if (error instanceof MongoWriteConcernError) return true;
  if (error instanceof MongoServerError) return false;
  if (
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoServerClosedError
  )
    return false;
  // A connection that could not be established carried no command: the driver labels its failures (socket connect,
  // handshake) SystemOverloadedError / HandshakeError; a cleared pool hands out none.
  if (
    error.hasErrorLabel(MongoErrorLabel.SystemOverloadedError) ||
    error.hasErrorLabel(MongoErrorLabel.HandshakeError) ||
    error.name === 'MongoPoolClearedError'
  )
    return false;
  return true;
}

/**
 * The write was applied on the primary but its write concern (majority) was not confirmed: it may survive or be rolled
 * back at a failover, and no read can tell yet (ADR 0020).
 */
export const isWriteConcernError = (error: unknown): boolean => error instanceof MongoWriteConcernError;

/** Seconds a client should wait before retrying while the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The client's view of a database error, or undefined when the error is not one the database explains (a bug: the
 * caller reports it as a 500 and logs it). Services that can name the clashing field throw their own CONFLICT first.
 */
export function databaseAppError(error: unknown): AppError | undefined {
  if (isDuplicateKeyError(error)) {
    return new AppError('CONFLICT', 'A resource with these values already exists', { cause: error });
  }
  if (isDatabaseUnavailableError(error)) {
    return new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable', {
      cause: error,
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    });
  }
  return undefined;
}
