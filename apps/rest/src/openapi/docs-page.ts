/**
 * GET /docs: Swagger UI over /openapi.json, with every asset served by this process from the `swagger-ui-dist`
 * package (no CDN, no inline script, so a strict `script-src 'self'` policy holds). Without JavaScript the page
 * still lists every operation.
 */
const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

export const DOCS_ASSET_PATH = '/docs/assets';
export const DOCS_INITIALIZER_PATH = '/docs/swagger-initializer.js';

/** The Swagger UI files the page loads, from swagger-ui-dist. */
export const DOCS_ASSETS = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
] as const;

export function renderDocsPage(document: Record<string, unknown>): string {
  const paths = (document['paths'] ?? {}) as Record<
    string,
    Record<string, { summary?: string; operationId?: string }>
  >;
  const rows = Object.entries(paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, op]) =>
          `<tr class="operation" id="${escapeHtml(op.operationId ?? '')}"><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(op.summary ?? '')}</td></tr>`,
      ),
    )
    .join('\n');
  const info = (document['info'] ?? {}) as { title?: string };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title ?? 'API')} documentation</title>
<link rel="stylesheet" href="${DOCS_ASSET_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_ASSET_PATH}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<noscript>
<h1>${escapeHtml(info.title ?? 'API')} documentation</h1>
<p>The machine-readable description is at <a href="/openapi.json">/openapi.json</a>; versioning is described in <a href="/docs/api-versioning">/docs/api-versioning</a>.</p>
<table>${rows}</table>
</noscript>
<script src="${DOCS_ASSET_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_INITIALIZER_PATH}"></script>
</body>
</html>`;
}

/** The page's own script (a file, not inline): Swagger UI reading this server's document. */
export const DOCS_INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
  });
});
`;
