/**
 * Versioned writes within a deadline on the real FerretDB (ADR 0020): racing writers each land as their own version and
 * the last one acknowledged stands; claims are kept (a version is claimed once); no write step starts after the
 * deadline and contention is answered within it; a vanished holder's claim is taken over after its settledBy; a write
 * whose answer was lost is settled by a read after its commit bound.
 */
import { MongoNetworkError, type Db } from 'mongodb';
import { Deadline, withDeadline } from '@platform/contracts';
import { AppError } from '@platform/errors';
import { suiteDatabases } from '@platform/testing';
import {
  CLAIM_CLOCK_MARGIN_MS,
  updateVersioned,
  VERSION_CLAIMS_COLLECTION,
  writeVersioned,
  versionOf,
  type VersionClaim,
} from './version-claims';
import { sweepExpiredClaims } from './claim-retention';

interface Thing {
  _id: number;
  value: number;
  version?: number;
}

const generous = () => Deadline.in(60_000, 3_000);

const codeOf = (error: unknown): string | undefined => (error instanceof AppError ? error.code : undefined);

describe('versioned writes on a real server', () => {
  const databases = suiteDatabases();
  let db: Db;

  beforeAll(async () => {
    db = databases.fresh('claims_');
  });

  const things = () => db.collection<Thing>('things');
  const claims = () => db.collection<VersionClaim>(VERSION_CLAIMS_COLLECTION);
  const target = () => ({ db, collection: things() });

  it('when 40 unconditional writers race on one record, then each lands as its own version and the last acknowledged stands', async () => {
    await things().insertOne({ _id: 1, value: -1 });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, writer) =>
        withDeadline(generous(), () => updateVersioned(target(), 1, { value: writer })),
      ),
    );
    const versions = results.map((doc) => versionOf(doc!)).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const final = await things().findOne({ _id: 1 });
    const last = results.find((doc) => doc!.version === 40)!;
    expect(final).toEqual(last);
    // Every version was claimed once, and the claims stay (nobody deletes them after the write).
    expect(await claims().countDocuments({ resource: 'things', recordId: 1 })).toBe(40);
  });

  it('when the deadline has passed, then nothing is written, no claim is taken and the answer is a 503 with Retry-After', async () => {
    await things().insertOne({ _id: 2, value: 0 });
    const late = Deadline.in(0, 3_000);
    const error = await withDeadline(late, () => updateVersioned(target(), 2, { value: 9 })).catch((e: unknown) => e);
    expect(codeOf(error)).toBe('SERVICE_UNAVAILABLE');
    expect((error as AppError).headers?.['retry-after']).toBeTruthy();
    expect(await things().findOne({ _id: 2 })).toEqual({ _id: 2, value: 0 });
    expect(await claims().countDocuments({ recordId: 2 })).toBe(0);
  });

  it('when another writer holds the claim until after the deadline, then an unconditional write answers CONFLICT with Retry-After within its deadline and writes nothing', async () => {
    await things().insertOne({ _id: 3, value: 0 });
    const now = Date.now();
    await claims().insertOne(heldClaim(3, 0, now, now + 30_000));
    const began = Date.now();
    const error = await withDeadline(Deadline.in(400, 3_000), () => updateVersioned(target(), 3, { value: 1 })).catch(
      (e: unknown) => e,
    );
    expect(codeOf(error)).toBe('CONFLICT');
    expect((error as AppError).headers?.['retry-after']).toBe('1');
    expect(Date.now() - began).toBeLessThan(1_500);
    expect(await things().findOne({ _id: 3 })).toEqual({ _id: 3, value: 0 });
    // A conditional writer meets 412 at once.
    const conditional = await withDeadline(generous(), () => updateVersioned(target(), 3, { value: 2 }, 0)).catch(
      (e: unknown) => e,
    );
    expect(codeOf(conditional)).toBe('PRECONDITION_FAILED');
  });

  it('when a claim holder vanished (past its settledBy and the clock margin), then the next unconditional writer takes it over and writes', async () => {
    await things().insertOne({ _id: 4, value: 0 });
    const now = Date.now();
    await claims().insertOne(heldClaim(4, 0, now - 10_000, now - CLAIM_CLOCK_MARGIN_MS - 1_000));
    const written = await withDeadline(generous(), () => updateVersioned(target(), 4, { value: 7 }));
    expect(written).toMatchObject({ _id: 4, value: 7, version: 1 });
    // The takeover is the next attempt of the same version; the abandoned claim is left to the sweep.
    expect(await claims().findOne({ _id: 'things:4:v0~1' })).toMatchObject({ attempt: 1, version: 0 });
    expect(await claims().findOne({ _id: 'things:4:v0' })).not.toBeNull();
  });

  /** A write of `value` to document `id` whose answer is lost (a reset connection); `applied`: it reached the database. */
  const lostAnswer = (id: number, value: number, applied: boolean) => {
    const collection = things();
    return withDeadline(Deadline.in(5_000, 300), () =>
      writeVersioned<Thing, Thing>({
        db,
        resource: 'things',
        id,
        expectedVersion: null,
        read: (bound) => collection.findOne({ _id: id }, bound),
        write: async (from) => {
          if (applied) await collection.updateOne({ _id: id }, { $set: { value, version: from + 1 } });
          throw new MongoNetworkError('connection reset after the command was sent');
        },
        settled: (from, after) => (after && versionOf(after) > from ? { committed: after } : 'not-applied'),
      }),
    );
  };

  it('when the answer of a write that committed is lost, then it is settled by a read after its commit bound and answered as written', async () => {
    await things().insertOne({ _id: 5, value: 0 });
    expect(await lostAnswer(5, 5, true)).toEqual({ _id: 5, value: 5, version: 1 });
  });

  it('when the answer of a write that did not commit is lost, then it answers 503 (nothing changed) only after its commit bound, and the claim stays for a takeover', async () => {
    await things().insertOne({ _id: 6, value: 0 });
    const began = Date.now();
    const error = await lostAnswer(6, 6, false).catch((e: unknown) => e);
    expect(codeOf(error)).toBe('SERVICE_UNAVAILABLE');
    expect(Date.now() - began).toBeGreaterThanOrEqual(300);
    expect(await things().findOne({ _id: 6 })).toEqual({ _id: 6, value: 0 });
    expect(await claims().findOne({ _id: 'things:6:v0' })).not.toBeNull();
  });

  it('when a write under its claim matches nothing (the record left the writer\'s scope), then the claim is given back at once', async () => {
    await things().insertOne({ _id: 8, value: 0, version: 1 });
    // As read for authorisation, then written with a scope the record no longer meets.
    const written = await withDeadline(generous(), () =>
      updateVersioned(target(), 8, { value: 3 }, null, { value: 99 }, { current: { _id: 8, value: 0, version: 1 }, currentReadAt: Date.now() }),
    );
    expect(written).toBeNull();
    expect(await things().findOne({ _id: 8 })).toEqual({ _id: 8, value: 0, version: 1 });
    expect(await claims().findOne({ _id: 'things:8:v1' })).toBeNull();
  });

  it('when claims are past their retention, then the sweep removes exactly those', async () => {
    const now = Date.now();
    await claims().insertMany([
      { ...heldClaim(9, 0, now - 7_200_000, now - 7_000_000), expiresAt: new Date(now - 1_000) },
      { ...heldClaim(9, 1, now, now + 1_000), expiresAt: new Date(now + 3_600_000) },
    ]);
    expect(await sweepExpiredClaims(db)).toBe(1);
    expect(await claims().countDocuments({ recordId: 9 })).toBe(1);
  });
});

function heldClaim(id: number, version: number, claimedAt: number, settledBy: number): VersionClaim {
  return {
    _id: `things:${id}:v${version}`,
    resource: 'things',
    recordId: id,
    version,
    attempt: 0,
    claimedAt: new Date(claimedAt),
    settledBy: new Date(settledBy),
    expiresAt: new Date(claimedAt + 3_600_000),
  };
}
