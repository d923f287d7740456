/** Child processes the tooling owns: started with a name, stopped with SIGTERM (then SIGKILL), never left behind. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions & { logFile?: string | undefined },
): ManagedProcess {
  const { logFile, ...spawnOptions } = options;
  const child = spawn(command, args, {
    ...spawnOptions,
    stdio: logFile ? ['ignore', 'pipe', 'pipe'] : (spawnOptions.stdio ?? 'inherit'),
  });
  if (logFile) {
    const out = createWriteStream(logFile, { flags: 'a' });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
  }
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null)));
    child.once('error', () => resolve(null));
  });
  return {
    name,
    child,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
