/**
 * Which of the caller's environment variables `npm start` hands to the processes: every variable any process's
 * environment.ts declares (read from the zod schemas with the same parser the deployment tests use, so the list cannot
 * drift from the code), except the ones the launcher decides itself per process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnvironmentSchema } from '../deployment/deployment-model';

/** Set by the launcher for each process: its port, its own database, the URLs of its peers, the shared stores. */
export const LAUNCHER_OWNED = new Set([
  'PORT',
  'MONGO_URL',
  'MONGO_DB',
  'REDIS_URL',
  'JWT_SECRET',
  'DATA_DIR',
  'GATEWAY_URL',
  'USERS_SUBGRAPH_URL',
  'ITEMS_SUBGRAPH_URL',
  'AUTH_SUBGRAPH_URL',
  'POSTS_SUBGRAPH_URL',
  'SUPERGRAPH_PATH',
  'METRICS_PORT',
]);

/** Every variable an environment.ts under apps/ or libs/config declares, sorted. */
export function declaredVariables(rootDir: string): string[] {
  const files = [
    ...readdirSync(join(rootDir, 'apps'))
      .map((app) => join(rootDir, 'apps', app, 'src', 'environment.ts'))
      .filter((file) => {
        try {
          readFileSync(file);
          return true;
        } catch {
          return false;
        }
      }),
    join(rootDir, 'libs', 'config', 'src', 'common-environment.ts'),
    join(rootDir, 'libs', 'config', 'src', 'supergraph-environment.ts'),
  ];
  const names = new Set<string>();
  for (const file of files) for (const variable of parseEnvironmentSchema(readFileSync(file, 'utf8'))) names.add(variable.name);
  return [...names].sort();
}

/** The caller's values of the declared variables the launcher does not own, and OpenTelemetry's standard `OTEL_*`. */
export function passThrough(rootDir: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const passed: Record<string, string> = {};
  // Read by the OpenTelemetry SDK itself (libs/tracing), not by an environment.ts.
  for (const [name, value] of Object.entries(env)) if (name.startsWith('OTEL_') && value !== undefined) passed[name] = value;
  for (const name of declaredVariables(rootDir)) {
    const value = env[name];
    if (value !== undefined && !LAUNCHER_OWNED.has(name)) passed[name] = value;
  }
  return passed;
}
