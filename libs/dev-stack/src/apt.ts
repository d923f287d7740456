/**
 * Installing a Debian package the test kit needs on a fresh machine (redis-server, chromium), first run only. Two
 * first runs at once (a developer's and CI's, or two worktrees) contend for apt's locks: dpkg's lock is waited for by
 * apt itself (`DPkg::Lock::Timeout`); the package lists' lock, which `apt-get update` does not wait for, by trying again
 * every two seconds while apt names a lock held by another process.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);

const LOCK_WAIT_MS = 600_000;
const HELD = /Could not get lock|Unable to lock/;

async function apt(args: string[], timeoutMs: number): Promise<void> {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await execFile('apt-get', ['-o', `DPkg::Lock::Timeout=${LOCK_WAIT_MS / 1000}`, ...args], {
        env,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      });
      return;
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '');
      if (!HELD.test(stderr) || Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
}

export async function aptInstall(pkg: string, timeoutMs: number): Promise<void> {
  await apt(['update', '-qq'], 300_000);
  await apt(['install', '-y', '-qq', pkg], timeoutMs);
}
