/**
 * The documentation surface and the correlation id over the real stack: /openapi.json validates against OpenAPI 3.1,
 * /docs renders every operation in headless Chromium from local assets only, its Authorize button logs in with a
 * username and password (OAuth2 password flow on /token) for "Try it out", the request id reaches the facade's,
 * gateway's and subgraph's log lines, and (last) a request to every documented operation answers a status it lists.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { CHROMIUM_ARGS, ensureChromium } from '@platform/dev-stack';
import { http, validateOpenApi31 } from '@platform/testing';
import { ADMIN, loginToken, registerUser, stack, unique } from './test/interface-support';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walks arbitrary JSON documents
type Json = Record<string, any>;
const rest = (path: string) => `${stack.restUrl}${path}`;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
let document: Json;
let token = '';

beforeAll(async () => {
  document = (await http.get(rest('/openapi.json'))).body as Json;
  token = await loginToken(stack.restUrl, ADMIN.username, ADMIN.password);
}, 60_000);

const operations = () =>
  Object.entries(document['paths'] as Json).flatMap(([path, item]) =>
    METHODS.filter((method) => (item as Json)[method]).map((method) => ({
      path,
      method,
      op: (item as Json)[method] as Json,
    })),
  );

describe('OpenAPI document served by the facade', () => {
  it('when /openapi.json is fetched, then it is a valid OpenAPI 3.1 document with paths, components and schemas', () => {
    expect(validateOpenApi31(document)).toEqual([]);
    expect(document['openapi']).toBe('3.1.0');
    expect(Object.keys(document['components'].schemas).length).toBeGreaterThan(0);
    expect(operations().length).toBeGreaterThan(10);
  });
});

/** Runs `use` in a fresh headless Chromium profile (the project's Chromium), closed and removed afterwards. */
async function withChromium(use: (context: BrowserContext) => Promise<void>): Promise<void> {
  const executablePath = await ensureChromium((message) => process.stdout.write(`${message}\n`));
  const profile = mkdtempSync(join(tmpdir(), 'docs-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: CHROMIUM_ARGS });
  try {
    await use(context);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

describe('/docs in a browser', () => {
  it('when /docs is opened in headless Chromium, then every operation renders and no asset comes from elsewhere', async () => {
    await withChromium(async (context) => {
      const page = context.pages()[0] ?? (await context.newPage());
      const requested: string[] = [];
      const failed: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      page.on('requestfailed', (request) => failed.push(request.url()));
      const response = await page.goto(rest('/docs'), { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const expected = operations().length;
      await page.waitForFunction((count) => document.querySelectorAll('.opblock').length >= count, expected, {
        timeout: 30_000,
      });
      const rendered = await page.$$eval('.opblock', (blocks) =>
        blocks.map(
          (block) =>
            `${block.querySelector('.opblock-summary-method')?.textContent?.toLowerCase()} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        ),
      );
      for (const { path, method } of operations()) expect(rendered).toContain(`${method} ${path}`);
      expect(requested.filter((url) => !url.startsWith(stack.restUrl) && !url.startsWith('data:'))).toEqual(
        [],
      );
      expect(failed).toEqual([]);
    });
  }, 120_000);
});

describe('/docs logs in', () => {
  it('when a user authorizes with username and password in /docs, then "Try it out" on GET /users/me answers 200 with that user', async () => {
    const account = await registerUser(stack.restUrl, 'docs');
    await withChromium(async (context) => {
      // Nothing leaves the machine: every request not to 127.0.0.1 is refused (and recorded).
      const blocked: string[] = [];
      await context.route('**/*', async (route) => {
        const url = new URL(route.request().url());
        if (url.hostname === '127.0.0.1' || url.protocol === 'data:') return route.continue();
        blocked.push(url.href);
        return route.abort();
      });
      const page = context.pages()[0] ?? (await context.newPage());
      const tokenRequests: Array<{ body: string; headers: Record<string, string>; status?: number }> = [];
      page.on('requestfinished', (request) => {
        if (new URL(request.url()).pathname !== '/token') return;
        tokenRequests.push({ body: request.postData() ?? '', headers: request.headers() });
      });
      await page.goto(rest('/docs'), { waitUntil: 'load' });
      await page.locator('button.authorize').first().click();
      const oauth = page.locator('.auth-container').filter({ hasText: 'oauth2Password' });
      await oauth.locator('#oauth_username').fill(account.username);
      await oauth.locator('#oauth_password').fill(account.password);
      await oauth.locator('button.authorize').click();
      // Swagger UI shows Logout once the token endpoint answered with a token.
      await oauth.locator('button', { hasText: 'Logout' }).waitFor({ timeout: 30_000 });
      await page.locator('.modal-ux button.close-modal').first().click();

      const me = page.locator('#operations-users-getCurrentUser');
      await me.locator('.opblock-summary').first().click();
      await me.locator('button.try-out__btn').click();
      await me.locator('button.execute').click();
      const status = me.locator('.live-responses-table .response .response-col_status').first();
      await status.waitFor({ timeout: 30_000 });
      const body = await me.locator('.live-responses-table .response-col_description pre').first().textContent();
      expect({ status: (await status.textContent())?.trim(), body: JSON.parse(body ?? '{}') }).toEqual({
        status: '200',
        body: expect.objectContaining({ id: account.id, username: account.username }),
      });
      expect(tokenRequests).toHaveLength(1);
      expect(Object.fromEntries(new URLSearchParams(tokenRequests[0]!.body))).toMatchObject({
        grant_type: 'password',
        username: account.username,
      });
      expect(blocked).toEqual([]);
    });
  }, 120_000);
});

describe('correlation', () => {
  it('when a request carries X-Request-Id, then it is echoed and every hop logs one line with it', async () => {
    const requestId = `corr-${unique()}`;
    const response = await http.get(rest('/users/1'), { token, headers: { 'x-request-id': requestId } });
    expect(response.headers.get('x-request-id')).toBe(requestId);
    const generated = await http.get(rest('/nowhere'));
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Embedded (the default): rest -> users; remote: rest -> gateway -> users, and the gateway logs its line too.
    const hops = [
      ['rest.log', { method: 'GET', path: '/users/1', status: response.status }],
      ...(stack.gatewayMode === 'remote' ? ([['gateway.log', { method: 'POST', operation: 'GetUser', status: 200 }]] as const) : []),
      ['users.log', { method: 'POST', status: 200 }],
    ] as const;
    for (const [file, fields] of hops) {
      const lines = readFileSync(join(stack.urls['logDir']!, file), 'utf8')
        .split('\n')
        .filter((line) => line.includes(requestId))
        .map((line) => JSON.parse(line) as Json);
      // The gateway's account-state check of the bearer token (ADR 0011) is its own call to users, under the same id.
      const completed = lines.filter((line) => line['msg'] === 'request completed' && line['operation'] !== 'AccountStatus');
      expect({ file, count: completed.length }).toEqual({ file, count: 1 });
      expect(completed[0]).toMatchObject({ requestId, ...fields, durationMs: expect.any(Number) });
    }
  });
});

describe('every documented operation', () => {
  it('when each operation is called, then it answers one of the statuses it documents', async () => {
    const mismatches: string[] = [];
    for (const { path, method, op } of operations()) {
      const url = rest(path.replace(/\{[^}]+\}/g, '2147483000'));
      const content = (op['requestBody']?.content ?? {}) as Json;
      const json = content['application/json'];
      const form = content['application/x-www-form-urlencoded'];
      const example = (json ?? form)?.example;
      const body = example && typeof example === 'object' ? { ...example } : example;
      if (body && typeof body === 'object' && 'username' in body) body.username = `walk${unique()}`;
      if (body && typeof body === 'object' && 'email' in body) body.email = `walk${unique()}@example.com`;
      const response = await http[method](url, {
        token,
        ...(json
          ? { json: body }
          : form
            ? { form: Object.fromEntries(Object.entries(body ?? {}).map(([k, v]) => [k, String(v)])) }
            : {}),
      });
      if (!(String(response.status) in op['responses'])) {
        mismatches.push(
          `${method.toUpperCase()} ${path}: ${response.status} not in [${Object.keys(op['responses']).join(', ')}] ${response.text.slice(0, 120)}`,
        );
      }
    }
    expect(mismatches).toEqual([]);
  }, 120_000);
});
