/**
 * The documentation surface: /openapi.json, /docs (Swagger UI from local assets) and /docs/api-versioning (the
 * migration note v1 responses link to). Known paths answer 405 with `Allow` for other methods, like the API routes.
 */
import { dirname, join } from 'node:path';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { AppError } from '@platform/errors';
import { MIGRATION_NOTE_PATH } from '../versioning/api-version';
import { PUBLIC_DOCUMENT } from '../http/cache-policy';
import {
  DOCS_ASSET_PATH,
  DOCS_ASSETS,
  DOCS_INITIALIZER,
  DOCS_INITIALIZER_PATH,
  renderDocsPage,
} from './docs-page';
// The migration note is bundled into the facade (esbuild `text` loader), so every deployment can serve it.
import migrationNoteText from '../versioning/migration-note.md';


export function createDocsRouter(openApi: Record<string, unknown>): Router {
  const router = Router({ strict: false, caseSensitive: true });
  const openApiJson = JSON.stringify(openApi);
  const docsHtml = renderDocsPage(openApi);
  const assetDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const get = (path: string, handler: (req: Request, res: Response, next: NextFunction) => void) => {
    router.get(path, handler);
    router.all(path, (_req: Request, _res: Response, next: NextFunction) => {
      next(new AppError('METHOD_NOT_ALLOWED', 'Method not allowed', { headers: { allow: 'GET, HEAD' } }));
    });
  };

  // The same for every caller (public), and changed only by a deployment: a cache may keep each a few minutes.
  get('/openapi.json', (_req, res) => {
    res.type('application/json').set('cache-control', PUBLIC_DOCUMENT).send(openApiJson);
  });
  get('/docs', (_req, res) => {
    res.type('text/html').set('cache-control', PUBLIC_DOCUMENT).send(docsHtml);
  });
  get(DOCS_INITIALIZER_PATH, (_req, res) => {
    res.type('text/javascript').set('cache-control', PUBLIC_DOCUMENT).send(DOCS_INITIALIZER);
  });
  get(MIGRATION_NOTE_PATH, (_req, res) => {
    res.type('text/markdown; charset=utf-8').set('cache-control', PUBLIC_DOCUMENT).send(migrationNoteText);
  });
  for (const asset of DOCS_ASSETS) {
    const file = join(assetDir, asset);
    get(`${DOCS_ASSET_PATH}/${asset}`, (_req, res, next) => {
      res.sendFile(file, { maxAge: '1h' }, (error) => {
        if (error) next(error);
      });
    });
  }
  return router;
}
