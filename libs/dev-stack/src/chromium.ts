/**
 * Headless Chromium for browser checks (the /docs page): the Debian package `chromium`, installed with apt-get
 * when missing (as root; CI machines are fresh), driven through playwright-core with a throw-away profile.
 */
import { existsSync } from 'node:fs';
import { aptInstall } from './apt';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Flags for a quiet, offline, sandbox-less headless run (containers run as root). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Returns the chromium binary, installing the Debian package when missing; throws a clear error when it cannot. */
export async function ensureChromium(log: (message: string) => void = () => undefined): Promise<string> {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  if (!existsSync('/usr/bin/apt-get') || process.getuid?.() !== 0) {
    throw new Error(
      `${CHROMIUM_PATH} is missing; install the Debian package chromium (apt-get install chromium)`,
    );
  }
  log('installing chromium (apt-get; first run only)');
  await aptInstall('chromium', 900_000);
  if (!existsSync(CHROMIUM_PATH))
    throw new Error('apt-get install chromium did not provide /usr/bin/chromium');
  return CHROMIUM_PATH;
}
