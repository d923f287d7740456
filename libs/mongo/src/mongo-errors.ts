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
} from 'mongodb';
import { AppError } from '@platform/errors';

/** MongoDB's duplicate-key codes (11001 and 12582 are older servers' spellings of 11000). */
const DUPLICATE_KEY_CODES = new Set([11000, 11001, 12582]);

/**
 * FerretDB v1 (SQLite backend) reports an insert that a unique index refuses as 11000, but an update or
 * findAndModify refused by one as InternalError (code 1) carrying SQLite's constraint text (codes 2067 / 1555).
 */
const FERRETDB_UNIQUE_VIOLATION = /UNIQUE constraint failed|\((?:2067|1555)\)$/;

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
  return UNAVAILABLE_LABELS.some((label) => error.hasErrorLabel(label));
}

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
