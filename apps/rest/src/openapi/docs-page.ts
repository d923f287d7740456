/** GET /docs: an HTML page listing every operation of the OpenAPI document, with no external assets. */
const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export function renderDocsPage(document: Record<string, unknown>): string {
  const paths = (document['paths'] ?? {}) as Record<string, Record<string, { summary?: string; operationId?: string }>>;
  const rows = Object.entries(paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, op]) =>
          `<tr class="operation" id="${escapeHtml(op.operationId ?? '')}"><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(op.summary ?? '')}</td></tr>`,
      ),
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API documentation</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td{padding:.25rem .75rem;border-bottom:1px solid #ddd}</style>
</head><body><h1>API documentation</h1><p>The machine-readable description is at <a href="/openapi.json">/openapi.json</a>.</p>
<table>${rows}</table></body></html>`;
}
