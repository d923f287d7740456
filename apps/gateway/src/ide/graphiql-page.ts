/**
 * The gateway's GraphQL IDE: GraphiQL from the gateway's own bundle (tools/build.mjs builds it into
 * dist/apps/gateway/graphiql/; no CDN), under a strict nonce-based CSP. Development: a browser's GET /graphql shows
 * it, and /graphiql/ serves it. Production: only with GRAPHIQL=on, only at /graphiql/ and only behind HTTP Basic
 * authentication with GRAPHIQL_PASSWORD (any user name): the page and the schema it shows are for the platform's
 * internal teams, while every query it sends still needs its own bearer token or API key like any other client.
 * The Basic protection space is /graphiql/, so browsers never attach those credentials to /graphql itself.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { requestTarget } from '@platform/contracts';

export const IDE_PATH = '/graphiql/';

export interface GraphiQLOptions {
  /** Serve the IDE at all (GRAPHIQL: on, or auto in development). */
  enabled: boolean;
  production: boolean;
  /** Required in production: the HTTP Basic password of /graphiql/. */
  password: string | undefined;
  /** Where the bundle is (graphiql.js, graphiql.css). */
  assetsDir: string;
  /** The API schema as SDL (what clients can query), once the gateway loaded it. */
  apiSchemaSdl: () => string;
  graphqlPath?: string;
}

/** Answers the IDE's requests; returns false for every other request (the GraphQL handler takes those). */
export type GraphiQLHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

const ASSETS: Record<string, string> = {
  'graphiql.js': 'text/javascript; charset=utf-8',
  'graphiql.css': 'text/css; charset=utf-8',
};

const digest = (value: string) => createHash('sha256').update(value).digest();

export function createGraphiQL(options: GraphiQLOptions): GraphiQLHandler {
  if (!options.enabled) return () => false;
  if (options.production && !options.password) throw new Error('GRAPHIQL=on in production needs GRAPHIQL_PASSWORD');
  const graphqlPath = options.graphqlPath ?? '/graphql';
  // Read once at start: a missing bundle is a broken build, found at boot rather than by the first browser.
  const assets = new Map(
    Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(options.assetsDir, name)) }]),
  );
  const expected = options.password === undefined ? undefined : digest(options.password);

  const authorised = (req: IncomingMessage): boolean => {
    if (!options.production) return true;
    const match = /^Basic ([A-Za-z0-9+/=]{1,1024})$/.exec(req.headers.authorization ?? '');
    if (!match || !expected) return false;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 && timingSafeEqual(digest(decoded.slice(colon + 1)), expected);
  };

  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const { path: pathname, query: search } = requestTarget(req.url ?? '/');
    const browserOnGraphql =
      !options.production &&
      pathname === graphqlPath &&
      (req.headers.accept ?? '').includes('text/html') &&
      !new URLSearchParams(search).has('query');
    if (pathname === IDE_PATH.slice(0, -1)) {
      res.writeHead(308, { location: IDE_PATH }).end();
      return true;
    }
    if (!browserOnGraphql && !pathname.startsWith(IDE_PATH)) return false;
    if (!authorised(req)) {
      res
        .writeHead(401, {
          'www-authenticate': 'Basic realm="GraphiQL", charset="UTF-8"',
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
        })
        .end('Authentication required\n');
      return true;
    }
    const name = browserOnGraphql ? '' : pathname.slice(IDE_PATH.length);
    if (name === '') {
      sendPage(res, graphqlPath);
      return true;
    }
    if (name === 'schema.graphql') {
      res
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
        .end(options.apiSchemaSdl());
      return true;
    }
    const asset = assets.get(name);
    if (!asset) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return true;
    }
    res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'no-cache' }).end(asset.body);
    return true;
  };
}

/** The page: the bundle's script and style carry this response's nonce, and the CSP allows nothing else. */
function sendPage(res: ServerResponse, graphqlPath: string): void {
  const nonce = randomBytes(18).toString('base64');
  const config = JSON.stringify({ endpoint: graphqlPath, schemaUrl: `${IDE_PATH}schema.graphql` }).replace(/"/g, '&quot;');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphQL IDE</title>
<link rel="stylesheet" href="${IDE_PATH}graphiql.css" nonce="${nonce}">
<script src="${IDE_PATH}graphiql.js" nonce="${nonce}" defer></script>
</head>
<body>
<div id="graphiql" data-config="${config}"></div>
</body>
</html>
`;
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    // GraphiQL sizes its panes through the CSSOM (element.style), which style-src does not govern.
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  res
    .writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'cache-control': 'no-store',
    })
    .end(html);
}
