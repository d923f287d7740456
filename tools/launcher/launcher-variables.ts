/**
 * Which of the caller's environment variables `npm start` hands to the processes: every variable any process's
 * environment.ts declares (read from the zod schemas with the same parser the deployment tests use, so the list cannot
 * drift from the code), except the ones the launcher decides itself per process.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
  'EVENTS_SUBGRAPH_URL',
  'SUPERGRAPH_PATH',
  'METRICS_PORT',
  // npm start's FerretDB has no index Job: its subgraphs always build their indexes at start.
  'MONGO_INDEXES',
]);

const namesIn = (file: string): string[] => parseEnvironmentSchema(readFileSync(file, 'utf8')).map((variable) => variable.name);

/**
 * The variables each process declares, by app: its environment.ts, and the shared pieces of libs/config it extends
 * (commonEnvironment, supergraphEnvironment, mongoEnvironment, eventsRelayEnvironment, webhooksEnvironment).
 */
export function variablesByProcess(rootDir: string): Record<string, string[]> {
  const config = (name: string) => join(rootDir, 'libs', 'config', 'src', `${name}.ts`);
  const byProcess: Record<string, string[]> = {};
  for (const app of readdirSync(join(rootDir, 'apps'))) {
    const file = join(rootDir, 'apps', app, 'src', 'environment.ts');
    if (!existsSync(file)) continue;
    const source = readFileSync(file, 'utf8');
    const names = new Set(namesIn(file));
    // supergraphServiceEnvironment = commonEnvironment + supergraphEnvironment.
    const supergraphService = source.includes('supergraphServiceEnvironment');
    if (supergraphService || source.includes('commonEnvironment'))
      for (const name of namesIn(config('common-environment'))) names.add(name);
    if (supergraphService || source.includes('supergraphEnvironment'))
      for (const name of namesIn(config('supergraph-environment'))) names.add(name);
    if (source.includes('mongoEnvironment')) for (const name of namesIn(config('mongo-environment'))) names.add(name);
    // The events relay's settings (the subgraphs) and the events service's (its two processes).
    if (source.includes('eventsRelayEnvironment'))
      for (const name of namesIn(config('events-environment'))) names.add(name);
    if (source.includes('webhooksEnvironment'))
      for (const name of namesIn(config('webhooks-environment'))) names.add(name);
    byProcess[app] = [...names].sort();
  }
  return byProcess;
}

/** Every variable an environment.ts under apps/ or libs/config declares, sorted. */
export function declaredVariables(rootDir: string): string[] {
  return [...new Set(Object.values(variablesByProcess(rootDir)).flat())].sort();
}

/** The variable names of README's configuration table (first column, each in backticks). */
export function documentedVariables(rootDir: string): string[] {
  const readme = readFileSync(join(rootDir, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## GraphQL for internal teams'));
  const names = new Set<string>();
  for (const line of table.split('\n')) {
    const first = line.split('|')[1] ?? '';
    for (const match of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(match[1]!);
  }
  return [...names];
}

/** Read by Node itself in every process (e.g. `--max-old-space-size`, the heap limit the Kubernetes manifests set). */
const NODE_RUNTIME = ['NODE_OPTIONS'];

/**
 * The caller's values of the declared variables the launcher does not own, OpenTelemetry's standard `OTEL_*`, and
 * Node's own `NODE_OPTIONS`.
 */
export function passThrough(rootDir: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const passed: Record<string, string> = {};
  // Read by the OpenTelemetry SDK itself (libs/tracing), not by an environment.ts.
  for (const [name, value] of Object.entries(env)) if (name.startsWith('OTEL_') && value !== undefined) passed[name] = value;
  for (const name of NODE_RUNTIME) if (env[name] !== undefined) passed[name] = env[name];
  for (const name of declaredVariables(rootDir)) {
    const value = env[name];
    if (value !== undefined && !LAUNCHER_OWNED.has(name)) passed[name] = value;
  }
  return passed;
}
