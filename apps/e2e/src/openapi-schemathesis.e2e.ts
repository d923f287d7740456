/**
 * The served OpenAPI document against the real stack, by Schemathesis (issue 14 deliverable 8): every check
 * (server errors, status codes, content types, headers, response schemas, positive data accepted, negative data
 * refused, unsupported methods and the Allow header, missing headers, auth, resource availability) in every phase
 * (examples, coverage, fuzzing, stateful), a fixed seed and a registered member's token. Any failure or error fails
 * the test, with Schemathesis' report (each finding with a curl reproduction) as the message.
 * The committed configuration and its documented exceptions: apps/e2e/schemathesis/. A longer run: bench/schemathesis.mjs.
 */
import { runSchemathesis } from '@platform/dev-stack';
import { http, testStack } from '@platform/testing';
import { issueTokens, registerAccount } from './test/accounts';

const stack = testStack();

describe('OpenAPI document under Schemathesis', () => {
  it('when Schemathesis runs every check and phase against the stack, then it reports no failure and no error', async () => {
    const fuzzer = await registerAccount(stack.restUrl, 'fuzz');
    const { access_token: token } = await issueTokens(stack.restUrl, fuzzer.username, fuzzer.password);
    // The document it reads is the one the facade serves.
    expect((await http.get(`${stack.restUrl}/openapi.json`)).status).toBe(200);

    const run = await runSchemathesis({
      restUrl: stack.restUrl,
      token,
      maxExamples: 5,
      timeoutMs: 540_000,
      log: (message) => process.stdout.write(`[schemathesis] ${message}\n`),
    });
    // On failure the whole report is the message: each finding with its curl reproduction.
    expect(run.exitCode === 0 ? 'exit code 0' : `exit code ${run.exitCode}\n${run.output}`).toBe('exit code 0');
    const summary = run.output.slice(run.output.lastIndexOf('SUMMARY'));
    expect(summary).toMatch(/Test cases:\s+\d+ generated, \d+ passed/);
    expect(summary).not.toMatch(/Failures:|Errors:/);
    expect(summary).toMatch(/Stateful/);
    expect(summary).not.toMatch(/❌|🚫/);
  }, 600_000);
});
