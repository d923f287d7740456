/** AppError: a domain error with a registry code; `isCatastrophic` marks failures the process should not survive. */
import { ERROR_CODES, type ErrorCode } from './error-codes';

export interface FieldError {
  field: string;
  message: string;
}

export interface ResourceRef {
  type: string;
  id: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: FieldError[] | undefined;
  readonly resource: ResourceRef | undefined;
  readonly isCatastrophic: boolean;
  /** Extra response headers the error implies (Allow, Retry-After). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      details?: FieldError[];
      resource?: ResourceRef;
      cause?: unknown;
      isCatastrophic?: boolean;
      headers?: Record<string, string>;
    } = {},
  ) {
    // A client error (4xx) is an answer, not a fault: its stack is never logged or shown, and capturing one costs
    // ~10 µs per error (a 404 or 429 flood pays it per request). Server errors keep theirs.
    const stackTraceLimit = Error.stackTraceLimit;
    if (ERROR_CODES[code].status < 500) Error.stackTraceLimit = 0;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.code = code;
    this.name = 'AppError';
    this.details = options.details;
    this.resource = options.resource;
    this.isCatastrophic = options.isCatastrophic ?? false;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export const validationError = (details: FieldError[], message?: string): AppError =>
  new AppError('BAD_USER_INPUT', message ?? describeFields(details), { details });

export const notFound = (type: string, id: string | number): AppError =>
  new AppError('NOT_FOUND', `${type} ${id} not found`, { resource: { type, id: String(id) } });

/** The one text of OUTCOME_UNKNOWN, shown by every format (a 5xx whose message is guidance, not internals). */
export const OUTCOME_UNKNOWN_MESSAGE =
  'The change may or may not have been made; read the resource (its version tells) or retry with the same Idempotency-Key';

/**
 * A write was sent and whether it committed could not be learned in time (ADR 0020): 504, no Retry-After; the client
 * reads the resource (its version tells) or retries a POST with the same Idempotency-Key.
 */
export const outcomeUnknown = (cause?: unknown): AppError =>
  new AppError('OUTCOME_UNKNOWN', OUTCOME_UNKNOWN_MESSAGE, cause === undefined ? {} : { cause });

function describeFields(details: FieldError[]): string {
  if (details.length === 0) return 'Validation failed';
  return `Validation failed: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}`;
}
