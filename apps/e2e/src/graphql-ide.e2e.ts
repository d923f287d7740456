/**
 * The gateway's GraphQL IDE in headless Chromium with every request beyond 127.0.0.1 blocked: the page and its assets
 * come from the gateway under a nonce CSP, a bearer token pasted into the headers editor authenticates a query that
 * returns data, and the docs show the schema's descriptions. A screenshot is kept under dist/test-artifacts/.
 * The IDE on /graphql is a development surface: it runs on a gateway of its own in development mode over the shared
 * (production-mode) subgraphs; production keeps it off (apps/gateway/test/persisted-operations.e2e.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, ensureChromium } from '@platform/dev-stack';
import { DEVELOPMENT_MODE, http, stackSubgraphUrls, suiteApps } from '@platform/testing';
import { ADMIN, loginToken, stack } from './test/interface-support';

const LOCAL = /^http:\/\/127\.0\.0\.1:\d+\//;

/** Replaces a CodeMirror editor's text as a paste would (no typed keys, so no auto-closed brackets). */
async function paste(page: Page, editorSelector: string, text: string): Promise<void> {
  await page.click(`${editorSelector} .CodeMirror-lines`);
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

describe('GraphQL IDE at the gateway (development mode)', () => {
  const apps = suiteApps('graphql-ide-');
  let gatewayUrl: string;

  beforeAll(async () => {
    gatewayUrl = (await apps.start('gateway', { ...DEVELOPMENT_MODE, ...stackSubgraphUrls() })).url;
  }, 60_000);

  it('when a browser opens /graphql, then GraphiQL runs a query with a pasted bearer token from local assets only', async () => {
    const token = await loginToken(stack.restUrl, ADMIN.username, ADMIN.password);
    const executablePath = await ensureChromium((message) => process.stdout.write(`${message}\n`));
    const profile = mkdtempSync(join(tmpdir(), 'ide-chromium-'));
    const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: CHROMIUM_ARGS });
    try {
      const blocked: string[] = [];
      const failed: string[] = [];
      const consoleErrors: string[] = [];
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (LOCAL.test(url) || url.startsWith('data:')) return route.continue();
        blocked.push(url);
        return route.abort('blockedbyclient');
      });
      const page = context.pages()[0] ?? (await context.newPage());
      page.on('requestfailed', (request) => failed.push(request.url()));
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      page.on('pageerror', (error) => consoleErrors.push(error.message));

      // The production-mode stack's gateway serves a browser no page (gateway-hardening.e2e.ts); this one does.
      const production = await http.get(`${stack.gatewayUrl}/graphql`, { headers: { accept: 'text/html' } });
      expect(production.headers.get('content-type') ?? '').not.toContain('text/html');
      const response = await page.goto(`${gatewayUrl}/graphql`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const csp = response?.headers()['content-security-policy'] ?? '';
      expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]{20,}'/);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      await page.waitForSelector('.graphiql-container', { timeout: 30_000 });

      await paste(page, '.graphiql-query-editor', 'query WhoAmI { me { username role } }');
      await page.click('.graphiql-editor-tools button[data-name="headers"]');
      await paste(page, '.graphiql-editor-tool .graphiql-editor:not(.hidden)', JSON.stringify({ Authorization: `Bearer ${token}` }));
      await page.click('.graphiql-execute-button');
      await page.waitForFunction(
        () => document.querySelector('.graphiql-response')?.textContent?.includes('"username": "admin"'),
        undefined,
        { timeout: 30_000 },
      );
      const result = await page.textContent('.graphiql-response');
      expect(result).toContain('"role": "admin"');
      expect(result).not.toContain('errors');

      await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
      await page.getByText('Query', { exact: true }).first().click();
      await page.waitForSelector('text=The authenticated user\'s own record', { timeout: 10_000 });

      const artifacts = join(stack.rootDir, 'dist', 'test-artifacts');
      mkdirSync(artifacts, { recursive: true });
      const screenshot = join(artifacts, 'graphql-ide.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      process.stdout.write(`GraphiQL screenshot: ${screenshot}\n`);

      expect(blocked).toEqual([]);
      expect(failed).toEqual([]);
      expect(consoleErrors).toEqual([]);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }, 120_000);

  it('when a client (not a browser) sends GET /graphql with a query, then it still gets GraphQL, not the page', async () => {
    const response = await http.get(`${gatewayUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { 'apollo-require-preflight': 'true', accept: 'text/html, application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { __typename: 'Query' } });
  });
});
