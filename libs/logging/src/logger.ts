/** Creates the process logger; passwords, hashes, tokens and keys are redacted wherever they appear in a log object. */
import pino from 'pino';

export type Logger = pino.Logger;

export const REDACTED_PATHS = [
  'password',
  '*.password',
  'passwordHash',
  '*.passwordHash',
  'current_password',
  '*.current_password',
  'new_password',
  '*.new_password',
  'newPassword',
  '*.newPassword',
  'currentPassword',
  '*.currentPassword',
  'refresh_token',
  '*.refresh_token',
  'refreshToken',
  '*.refreshToken',
  'access_token',
  '*.access_token',
  'key',
  '*.key',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'variables.input.password',
  'variables.password',
];

export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    // Asynchronous writes: no synchronous I/O on the request path.
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
