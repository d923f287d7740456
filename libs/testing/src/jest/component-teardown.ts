/** jest globalTeardown of the component tier: gives its share of the infrastructure back. */
import { releaseInfra } from './infra';

export default async function componentTeardown(): Promise<void> {
  await releaseInfra();
}
