/**
 * A certificate for test endpoints on loopback (webhook receivers): production delivers to https endpoints only, so
 * the production-mode systems of the tests deliver over TLS to receivers that present this certificate, which their
 * processes trust through NODE_EXTRA_CA_CERTS (Node's own way of adding a CA; nothing in the code under test changes).
 * Made by the `openssl` command line (a self-signed EC certificate for 127.0.0.1, ::1 and localhost, valid a day):
 * no npm package is needed for what one command does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface LoopbackTls {
  certFile: string;
  keyFile: string;
}

/** The certificate and key in `dir` (made once per directory); give `NODE_EXTRA_CA_CERTS: certFile` to the processes. */
export function loopbackTls(dir: string): LoopbackTls {
  const certFile = join(dir, 'loopback-cert.pem');
  const keyFile = join(dir, 'loopback-key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) return { certFile, keyFile };
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore', timeout: 30_000 },
  );
  return { certFile, keyFile };
}
