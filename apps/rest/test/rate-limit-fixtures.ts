/** Test fixtures for the facade's rate limits: own redis-server and rest processes with small budgets. */
import { join } from 'node:path';
import { ALL_SCOPES, signAccessToken } from '@platform/auth';
import { makeTempDir, startRedis, type RunningInfra } from '@platform/dev-stack';
import { unique, startExtraApp, testStack, type ExtraApp } from '@platform/testing';

export { unique };

export type RestProcess = ExtraApp;

/** A rest process pointing at the shared gateway, with its own rate-limit settings (behind a trusted proxy). */
export const startRest = (env: Record<string, string>, logDir: string): Promise<RestProcess> =>
  startExtraApp('rest', { TRUST_PROXY: 'true', ...env }, logDir);

export async function startOwnRedis(dir: string, port?: number): Promise<RunningInfra> {
  return startRedis({ dataDir: join(dir, `redis-${unique()}`), ...(port ? { port } : {}) });
}

export const tempDir = (prefix: string) => makeTempDir(prefix);

/** An admin access token for a user name of the test's own (each name is its own rate-limit identity). */
export const adminToken = (username: string): string =>
  signAccessToken(
    { sub: username, uid: null, role: 'admin', scopes: [...ALL_SCOPES], kind: 'user' },
    testStack().jwtSecret,
    600,
  );

/** A fresh documentation-range address per call, sent as X-Forwarded-For (the test processes trust the proxy). */
let nextClient = 0;
export const clientIp = (): string => {
  nextClient += 1;
  return `198.51.${100 + Math.floor(nextClient / 250)}.${(nextClient % 250) + 1}`;
};

export interface Timed {
  status: number;
  headers: Headers;
  body: string;
  ms: number;
}

export async function timedGet(url: string, headers: Record<string, string> = {}): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  const body = await response.text();
  return { status: response.status, headers: response.headers, body, ms: performance.now() - started };
}
