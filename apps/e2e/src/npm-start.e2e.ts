/** `npm start` brings the whole system up on loopback, and SIGINT leaves no process behind (FerretDB included). */
import { execFileSync, spawn } from 'node:child_process';
import { freePort, http, makeTempDir, testStack, waitForHttpOk } from '@platform/testing';

const stack = testStack();

function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [child, ppid] of rows) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start', () => {
  it('when started and then interrupted with SIGINT, then every process it started is gone', async () => {
    const data = makeTempDir('npm-start-');
    const names = ['rest', 'gateway', 'users', 'items', 'auth', 'posts', 'mongo', 'redis'];
    const ports: Record<string, string> = {};
    for (const name of names) ports[`${name.toUpperCase()}_PORT`] = String(await freePort());
    // Each app's metrics listener too (REST_METRICS_PORT, ...): also loopback-only, and printed.
    for (const name of names.slice(0, 6)) ports[`${name.toUpperCase()}_METRICS_PORT`] = String(await freePort());
    const child = spawn(process.execPath, ['tools/start.mjs'], {
      cwd: stack.rootDir,
      // GRAPHQL_MAX_DEPTH and TOKEN_STATUS_CACHE_TTL_MS were dropped by the launcher's hand-written list once.
      env: {
        ...process.env,
        ...ports,
        DATA_DIR: data.path,
        LOG_LEVEL: 'warn',
        TEST_STACK: '',
        SKIP_BUILD: '1',
        GRAPHQL_MAX_DEPTH: '2',
        TOKEN_STATUS_CACHE_TTL_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a failed test can still remove everything it started.
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitForHttpOk(`http://127.0.0.1:${ports['REST_PORT']}/readyz`, 90_000, () => child.exitCode === null);
      // The URLs are printed once every process is ready.
      for (let waited = 0; !output.includes('all processes ready') && waited < 10_000; waited += 100) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(output).toContain(`http://127.0.0.1:${ports['REST_PORT']}`);
      for (const name of names.slice(0, 6)) {
        expect(output).toContain(`metrics: http://127.0.0.1:${ports[`${name.toUpperCase()}_METRICS_PORT`]}/metrics`);
      }
      const listeners = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
      for (const port of Object.values(ports)) {
        const locals = listeners
          .split('\n')
          .map((l) => l.trim().split(/\s+/)[3] ?? '')
          .filter((address) => address.endsWith(`:${port}`));
        expect({ port, locals }).toEqual({ port, locals: [`127.0.0.1:${port}`] });
      }
      expect((await http.get(`http://127.0.0.1:${ports['GATEWAY_PORT']}/healthz`)).status).toBe(200);
      // A documented setting reaches the process that reads it: the gateway holds the depth of 2 it was given.
      const deep = await http.graphql(`http://127.0.0.1:${ports['GATEWAY_PORT']}/graphql`, '{ users { nodes { id } } }');
      expect(deep.status).toBe(400);
      expect(deep.body.errors[0].message).toBe('Query depth limit of 2 exceeded, found 3.');
      const pids = descendants(child.pid!);
      expect(pids.length).toBeGreaterThanOrEqual(8);
      const ferret = execFileSync('ps', ['-o', 'args=', '-p', pids.join(',')], { encoding: 'utf8' });
      expect(ferret).toContain('--telemetry=disable');
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      await new Promise((r) => setTimeout(r, 200));
      const left = pids.filter(alive);
      const described = left.length ? execFileSync('ps', ['-o', 'pid=,stat=,args=', '-p', left.join(',')], { encoding: 'utf8' }) : '';
      expect(described).toBe('');
    } finally {
      if (child.exitCode === null) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      data.remove();
    }
  }, 150_000);
});
