/**
 * Spectral (spectral:oas and the OWASP API Security ruleset, `.spectral.yaml`) finds no error in the generated OpenAPI
 * document, in every error format: every input is bounded, every integer has a format, every response declares the
 * rate-limit and CORS headers. The waived rules are the spec's own choices, each explained in `.spectral.yaml`.
 */
import { lintOpenApi } from '@platform/testing';
import { buildOpenApiDocument } from '../src/openapi/openapi-document';
import { loadRestEnvironment } from '../src/environment';
import { allRoutes } from '../src/routes';

const documentFor = (settings: Record<string, string>) =>
  buildOpenApiDocument(allRoutes, loadRestEnvironment({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(48), ...settings }));

describe('OpenAPI document under Spectral', () => {
  it('when every deployment variant of the document is linted, then Spectral reports no error', async () => {
    // These variants cover every schema the settings switch between (error shapes, users list styles, login status).
    const findings = await lintOpenApi({
      detail: documentFor({ ERROR_FORMAT: 'detail' }),
      envelope: documentFor({ ERROR_FORMAT: 'envelope', VALIDATION_STATUS: '400', USERS_LIST_STYLE: 'page' }),
      flat: documentFor({ ERROR_FORMAT: 'flat', USERS_LIST_STYLE: 'offset', LOGIN_FAILURE_STATUS: '400' }),
      problem: documentFor({ ERROR_FORMAT: 'problem' }),
    });
    const errors = findings.filter((finding) => finding.severity === 'error');
    expect(errors.map((e) => `${e.document} ${e.code} ${e.path}: ${e.message}`)).toEqual([]);
  }, 300_000);

  it('when a document has an unbounded input, an undeclared rate limit or a token in the query, then Spectral reports each', async () => {
    const document = documentFor({ ERROR_FORMAT: 'detail' }) as { paths: Record<string, Record<string, { parameters: unknown[]; responses: Record<string, { headers?: Record<string, unknown> }> }>> };
    const list = document.paths['/items/']!['get']!;
    list.parameters.push({ name: 'note', in: 'query', schema: { type: 'string' } });
    list.parameters.push({ name: 'session_token', in: 'query', schema: { type: 'string', maxLength: 10 } });
    delete list.responses['200']!.headers!['X-RateLimit-Reset'];
    const codes = (await lintOpenApi({ broken: document }))
      .filter((finding) => finding.severity === 'error')
      .map((finding) => finding.code);
    expect(codes).toEqual(
      expect.arrayContaining(['owasp:api4:2023-string-limit', 'rate-limit-headers', 'no-credentials-in-query']),
    );
  }, 300_000);
});
