/** The one classification of database errors, on the error objects the driver gives for MongoDB 7 and FerretDB v1. */
import {
  MongoError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
  type TopologyDescription,
} from 'mongodb';
import { AppError } from '@platform/errors';
import {
  databaseAppError,
  isBusyError,
  isDatabaseUnavailableError,
  isDuplicateKeyError,
  isTimeLimitError,
  writeMayHaveApplied,
} from './mongo-errors';

const serverError = (code: number, errmsg: string, labels: string[] = []) =>
  new MongoServerError({ ok: 0, code, errmsg, errorLabels: labels });

// Measured on FerretDB v1.24.2 (PostgreSQL): concurrent updates setting one unique e-mail give 1 success and the rest this.
const FERRETDB_UPDATE_DUPLICATE =
  '[msg_update.go:133 handler.(*Handler).updateDocument] [update.go:114 common.UpdateDocument] ' +
  '[collection.go:227 postgresql.(*collection).UpdateAll] [collection.go:218 postgresql.(*collection).UpdateAll.func1] ' +
  'ERROR: duplicate key value violates unique constraint "users_5e7cc513_email_unique_fdc48a5f_idx" (SQLSTATE 23505)';

describe('database error classification', () => {
  it.each([
    [
      'MongoDB E11000 on insert or update',
      serverError(
        11000,
        'E11000 duplicate key error collection: db.users index: email_unique dup key: { email: "a@b.c" }',
      ),
    ],
    [
      'FerretDB E11000 on insert',
      serverError(11000, 'E11000 duplicate key error collection: api_users.users'),
    ],
    ['FerretDB InternalError on update / findAndModify', serverError(1, FERRETDB_UPDATE_DUPLICATE)],
  ])(
    'when a unique index refuses a write (%s), then it is a duplicate key and a CONFLICT without driver text',
    (_label, error) => {
      expect(isDuplicateKeyError(error)).toBe(true);
      expect(isDatabaseUnavailableError(error)).toBe(false);
      const mapped = databaseAppError(error);
      expect(mapped).toBeInstanceOf(AppError);
      expect(mapped?.code).toBe('CONFLICT');
      expect(mapped?.status).toBe(409);
      expect(mapped?.message).not.toMatch(/E11000|UNIQUE|sqlite|index/i);
    },
  );

  it.each([
    ['a refused or reset connection', new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017')],
    ['a socket timeout', new MongoNetworkTimeoutError('connection 3 to 127.0.0.1:27017 timed out')],
    [
      'no selectable server',
      new MongoServerSelectionError('connect ECONNREFUSED', {} as TopologyDescription),
    ],
    ['an operation timeout (timeoutMS)', new MongoOperationTimeoutError('Timed out during server selection')],
    ['a closed client (shutdown)', new MongoTopologyClosedError()],
    ['ShutdownInProgress', serverError(91, 'The server is in quiesce mode and will shut down')],
    ['NotWritablePrimary', serverError(10107, 'not primary')],
    ['MaxTimeMSExpired', serverError(50, 'operation exceeded time limit')],
    ['an error labelled RetryableWriteError', serverError(999, 'whatever', ['RetryableWriteError'])],
  ])(
    'when the database is unavailable (%s), then it is SERVICE_UNAVAILABLE with Retry-After',
    (_label, error) => {
      expect(isDatabaseUnavailableError(error)).toBe(true);
      const mapped = databaseAppError(error);
      expect(mapped?.code).toBe('SERVICE_UNAVAILABLE');
      expect(mapped?.status).toBe(503);
      expect(Number(mapped?.headers?.['retry-after'])).toBeGreaterThan(0);
      expect(mapped?.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|primary|quiesce/i);
    },
  );

  it.each([
    ['a plain Error', new Error('boom')],
    ['a server error that is neither', serverError(2, 'BadValue: unknown operator $foo')],
    ['FerretDB InternalError without a constraint', serverError(1, 'some internal failure')],
    ['a driver error without a label', new MongoError('cursor is closed')],
    ['a non-error', 'text'],
  ])(
    'when the error is %s, then the database does not explain it (a 500 the caller logs)',
    (_label, error) => {
      expect(isDuplicateKeyError(error)).toBe(false);
      expect(isDatabaseUnavailableError(error)).toBe(false);
      expect(databaseAppError(error)).toBeUndefined();
    },
  );

  // A findAndModify past its maxTimeMS on FerretDB v1.24.2 (Go's context deadline, as code 1).
  const FERRETDB_TIME_LIMIT =
    '[msg_findandmodify.go:196 handler.(*Handler).findAndModifyDocument] [update.go:114 common.UpdateDocument] ' +
    '[collection.go:227 postgresql.(*collection).UpdateAll] context deadline exceeded';

  it('when the server stops a findAndModify at its maxTimeMS or MongoDB meets a write conflict, then the write was not applied and the answer is a 503', () => {
    for (const error of [serverError(1, FERRETDB_TIME_LIMIT), serverError(50, 'operation exceeded time limit')]) {
      expect(isTimeLimitError(error)).toBe(true);
      expect(writeMayHaveApplied(error)).toBe(false);
      expect(databaseAppError(error)?.code).toBe('SERVICE_UNAVAILABLE');
    }
    for (const error of [serverError(112, 'WriteConflict'), serverError(24, 'LockTimeout')]) {
      expect(isBusyError(error)).toBe(true);
      expect(writeMayHaveApplied(error)).toBe(false);
      expect(databaseAppError(error)?.code).toBe('SERVICE_UNAVAILABLE');
    }
  });

  it('when a write failed after it may have been sent, then it may have applied; when it never left, not', () => {
    const connect = new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017');
    // What driver 7.9 gives when the socket or the handshake of a new connection fails.
    connect.addErrorLabel('SystemOverloadedError');
    expect(writeMayHaveApplied(connect)).toBe(false);
    expect(writeMayHaveApplied(new MongoServerSelectionError('no server', {} as TopologyDescription))).toBe(false);
    expect(writeMayHaveApplied(serverError(11000, 'E11000 duplicate key'))).toBe(false);
    expect(writeMayHaveApplied(new AppError('SERVICE_UNAVAILABLE', 'deadline'))).toBe(false);
    expect(writeMayHaveApplied(new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed'))).toBe(true);
    expect(writeMayHaveApplied(new MongoNetworkTimeoutError('timed out'))).toBe(true);
    expect(
      writeMayHaveApplied(new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 64, errmsg: 'waiting' } })),
    ).toBe(true);
  });
});
