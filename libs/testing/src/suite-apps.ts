/** What many stack tests repeat: a unique suffix, error codes of a GraphQL answer, extra processes for one block. */
import { makeTempDir, type AppName } from '@platform/dev-stack';
import { startExtraApp, type ExtraApp } from './extra-apps';
import { testStack } from './test-stack';

/** A short suffix no other test run uses (names, usernames, database names). */
export const unique = (): string => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** The `extensions.code` of each error of a GraphQL response body. */
export const errorCodes = (body: {
  errors?: Array<{ extensions?: { code?: string } }>;
}): Array<string | undefined> => (body.errors ?? []).map((error) => error.extensions?.code);

/** The four `*_SUBGRAPH_URL` settings pointing at the shared stack's subgraphs, some replaced by `instead`. */
export function stackSubgraphUrls(
  instead: Partial<Record<'users' | 'items' | 'auth' | 'posts', string>> = {},
): Record<string, string> {
  const stack = testStack();
  return Object.fromEntries(
    (['users', 'items', 'auth', 'posts'] as const).map((name) => [
      `${name.toUpperCase()}_SUBGRAPH_URL`,
      instead[name] ?? `${stack.urls[name]}/graphql`,
    ]),
  );
}

interface Stoppable {
  process: { stop(): Promise<unknown> };
}

/**
 * Extra processes for one describe block: their logs in one temp dir, and after the block's tests (an afterAll this
 * registers) every one stopped and the dir removed. `start` runs startExtraApp; `track` adopts anything else started.
 */
export function suiteApps(prefix: string) {
  const dir = makeTempDir(prefix);
  const started: Stoppable[] = [];
  afterAll(async () => {
    await Promise.all(started.splice(0).map((app) => app.process.stop()));
    dir.remove();
  }, 30_000);
  const track = <T extends Stoppable>(app: T): T => {
    started.push(app);
    return app;
  };
  return {
    dir,
    track,
    start: async (name: AppName, env: Record<string, string>): Promise<ExtraApp> =>
      track(await startExtraApp(name, env, dir.path)),
  };
}
