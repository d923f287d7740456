/**
 * The served OpenAPI document against the real stack, by Schemathesis (issue 14 deliverable 8): every check
 * (server errors, status codes, content types, headers, response schemas, positive data accepted, negative data
 * refused, unsupported methods and the Allow header, missing headers, auth, resource availability) in every phase
 * (examples, coverage, fuzzing, stateful), a fixed seed and a registered member's token. Any failure or error fails
 * the test, with Schemathesis' report (each finding with a curl reproduction) as the message.
 *
 * It runs on a system of its own (FerretDB, redis-server and the eight processes, as the stack suite runs them): on
 * the shared stack, at the end of the suite, the events database holds the whole suite's deliveries and attempts, and
 * on FerretDB every delivery-log page and feed page is a pass over them (about 0.5 s each at 600 deliveries and 2,100
 * attempts), which made the run take several times as long and depend on what ran before it.
 * The committed configuration and its documented exceptions: apps/e2e/schemathesis/. A longer run: bench/schemathesis.mjs.
 */
import { makeTempDir, runSchemathesis } from '@platform/dev-stack';
import { http, startOwnSystem, type OwnSystem } from '@platform/testing';
import { issueTokens, registerAccount } from './test/accounts';

const ADMIN = { username: 'schemathesis-admin', password: 'schemathesis-admin-password-1' };

describe('OpenAPI document under Schemathesis', () => {
  const dir = makeTempDir('schemathesis-');
  let own: OwnSystem;

  beforeAll(async () => {
    own = await startOwnSystem({ dir: dir.path, admin: ADMIN });
  }, 240_000);

  afterAll(async () => {
    await own?.stop();
    if (process.env['KEEP_TEST_LOGS'] !== '1') dir.remove();
  }, 60_000);

  it('when Schemathesis runs every check and phase against the stack, then it reports no failure and no error', async () => {
    const rest = own.system.urls.rest;
    const fuzzer = await registerAccount(rest, 'fuzz');
    const { access_token: token } = await issueTokens(rest, fuzzer.username, fuzzer.password);
    // The document it reads is the one the facade serves.
    expect((await http.get(`${rest}/openapi.json`)).status).toBe(200);

    const run = await runSchemathesis({
      restUrl: rest,
      token,
      maxExamples: 5,
      timeoutMs: 540_000,
      log: (message) => process.stdout.write(`[schemathesis] ${message}\n`),
    });
    // On failure the whole report is the message: each finding with its curl reproduction.
    expect(run.exitCode === 0 ? 'exit code 0' : `exit code ${run.exitCode}\n${run.output}`).toBe(
      'exit code 0',
    );
    const summary = run.output.slice(run.output.lastIndexOf('SUMMARY'));
    expect(summary).toMatch(/Test cases:\s+\d+ generated, \d+ passed/);
    expect(summary).not.toMatch(/Failures:|Errors:/);
    expect(summary).toMatch(/Stateful/);
    expect(summary).not.toMatch(/❌|🚫/);
  }, 600_000);
});
