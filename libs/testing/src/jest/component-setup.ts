/** jest globalSetup of the component tier: only the infrastructure (PostgreSQL, FerretDB, redis-server), no process. */
import { acquireInfra } from './infra';

export default async function componentSetup(): Promise<void> {
  await acquireInfra();
}
