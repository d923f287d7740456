/** jest globalTeardown: stops the system and the infrastructure, removes the temp dirs. */
export default async function globalTeardown(): Promise<void> {
  const teardown = (globalThis as Record<string, unknown>)['__TEST_STACK_TEARDOWN__'] as (() => Promise<void>) | undefined;
  await teardown?.();
}
