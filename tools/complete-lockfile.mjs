// The npm registry reachable here serves only Linux builds of platform-specific packages, so `npm install`
// leaves their other-platform optional dependencies out of package-lock.json, and then `npm ci` refuses the
// lock as out of sync. This adds each missing optional dependency as an entry that names its platform (os/cpu
// read off the package name), so `npm ci` sees a complete lock and skips those entries on this platform.
// Run after every `npm install` that changes the lock (postinstall does it); it changes nothing when complete.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const lockPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const OS = ['darwin', 'win32', 'linux', 'freebsd', 'android', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'loong64', 'riscv64', 'mips64el', 'wasm32'];

function platformOf(name) {
  const parts = name.toLowerCase().split(/[/@_-]+/);
  const os = OS.find((o) => parts.includes(o) || (o === 'win32' && parts.includes('windows')));
  let cpu = CPU.find((c) => parts.includes(c));
  if (!cpu && parts.includes('ppc64le')) cpu = 'ppc64';
  if (!cpu && (parts.includes('armv7') || parts.includes('gnueabihf') || parts.includes('musleabihf'))) cpu = 'arm';
  if (!cpu && parts.includes('universal')) cpu = 'arm64';
  return { os, cpu };
}

export function completeLockfile(lock) {
  const packages = lock.packages ?? {};
  let added = 0;
  const depth = (path) => path.split('node_modules/').length;
  // Shallow packages first, so a hoisted entry gets the version the top-level dependant asks for.
  const dependants = Object.entries(packages).sort(([a], [b]) => depth(a) - depth(b));
  for (const [path, entry] of dependants) {
    for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
      const version = String(range).replace(/^[\^~=]/, '');
      const nested = `${path === '' ? '' : `${path}/`}node_modules/${dep}`;
      const hoisted = `node_modules/${dep}`;
      if (packages[nested]) continue;
      if (packages[hoisted] && packages[hoisted].version === version) continue;
      const { os, cpu } = platformOf(dep);
      if (!os && !cpu) continue;
      // Resolved the way npm resolves: beside the dependant when the hoisted slot holds another version.
      const target = packages[hoisted] ? nested : hoisted;
      packages[target] = {
        version,
        ...(entry.dev ? { dev: true } : {}),
        optional: true,
        ...(cpu ? { cpu: [cpu] } : {}),
        ...(os ? { os: [os] } : {}),
      };
      added += 1;
    }
  }
  lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
  return added;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const lock = JSON.parse(readFileSync(process.argv[2] ?? lockPath, 'utf8'));
  const added = completeLockfile(lock);
  if (added > 0) writeFileSync(process.argv[2] ?? lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  process.stdout.write(`complete-lockfile: ${added} platform entries added\n`);
}
