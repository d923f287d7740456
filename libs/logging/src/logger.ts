/** Creates the process logger; passwords, hashes, tokens and keys are redacted wherever they appear in a log object. */
import { isSpanContextValid, trace, TraceFlags } from '@opentelemetry/api';
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

/** Lines are gathered up to this many bytes before one write (a write to a pipe or socket costs far more than a line). */
const LOG_BUFFER_BYTES = 4096;
/** ...and written at the latest this long after they were logged, so a quiet process's lines still appear promptly. */
const LOG_FLUSH_INTERVAL_MS = 100;

/**
 * Asynchronous, buffered standard output: no synchronous I/O on the request path, and one write per few kilobytes of
 * lines instead of one per line. pino flushes the buffer synchronously when the process exits (a SIGKILL loses at
 * most the last LOG_FLUSH_INTERVAL_MS of lines).
 */
function bufferedStdout(): pino.DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  let unflushed = false;
  const write = stream.write.bind(stream);
  stream.write = (line: string) => {
    unflushed = true;
    return write(line);
  };
  setInterval(() => {
    if (!unflushed) return;
    unflushed = false;
    // flush() throws once the stream is closed (at exit); there is nothing left to write then.
    try {
      stream.flush();
    } catch {
      // closed
    }
  }, LOG_FLUSH_INTERVAL_MS).unref();
  return stream;
}

/**
 * Every line logged inside a traced (sampled) request carries its `trace_id` and `span_id`, so a log search leads to
 * the trace and back. Without tracing there is no active span: one cheap look-up per line.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !isSpanContextValid(context) || (context.traceFlags & TraceFlags.SAMPLED) === 0) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}

export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      name: service,
      level,
      mixin: traceFields,
      base: { service },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? bufferedStdout(),
  );
}

/**
 * The logger for the one line per request: its fields are a fixed set the request-log code builds (request id, method,
 * path without the query, operation name, status, duration), never an object from the caller, so it skips the
 * redaction pass (a third of the cost per line); every other line, including the per-request children, keeps it.
 */
export const accessLogger = (logger: Logger): Logger => logger.child({}, { redact: { paths: [] } });
