/**
 * A FerretDB of a test's own on the run's PostgreSQL cluster (globalSetup's): a fresh database on it unless the test
 * restarts one (`postgresUrl` of the first start), so a test's data never meets the shared stack's.
 */
import { createPostgresDatabase, startFerretDb, type RunningInfra } from '@platform/dev-stack';
import { testInfra } from './test-stack';

export type SuiteFerretDb = RunningInfra & { postgresUrl: string };

export async function startSuiteFerretDb(options: {
  dataDir: string;
  logFile?: string;
  port?: number;
  postgresUrl?: string;
}): Promise<SuiteFerretDb> {
  const postgresUrl = options.postgresUrl ?? (await createPostgresDatabase(testInfra().postgresUrl));
  const ferret = await startFerretDb({ ...options, postgresUrl });
  return { ...ferret, postgresUrl };
}
