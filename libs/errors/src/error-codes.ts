/** The registry: each machine code (also GraphQL `extensions.code`) with its HTTP status and envelope errorCode. */
export const ERROR_CODES = {
  BAD_USER_INPUT: { status: 422, errorCode: 'INVALID_INPUT' },
  BAD_REQUEST: { status: 400, errorCode: 'BAD_REQUEST' },
  UNAUTHENTICATED: { status: 401, errorCode: 'UNAUTHENTICATED' },
  LOGIN_FAILED: { status: 401, errorCode: 'LOGIN_FAILED' },
  FORBIDDEN: { status: 403, errorCode: 'FORBIDDEN' },
  NOT_FOUND: { status: 404, errorCode: 'NOT_FOUND' },
  METHOD_NOT_ALLOWED: { status: 405, errorCode: 'METHOD_NOT_ALLOWED' },
  REQUEST_TIMEOUT: { status: 408, errorCode: 'REQUEST_TIMEOUT' },
  CONFLICT: { status: 409, errorCode: 'CONFLICT' },
  PRECONDITION_FAILED: { status: 412, errorCode: 'PRECONDITION_FAILED' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, errorCode: 'IDEMPOTENCY_KEY_REUSED' },
  PRECONDITION_REQUIRED: { status: 428, errorCode: 'PRECONDITION_REQUIRED' },
  PAYLOAD_TOO_LARGE: { status: 413, errorCode: 'PAYLOAD_TOO_LARGE' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' },
  RATE_LIMITED: { status: 429, errorCode: 'RATE_LIMITED' },
  HEADERS_TOO_LARGE: { status: 431, errorCode: 'HEADERS_TOO_LARGE' },
  INTERNAL_SERVER_ERROR: { status: 500, errorCode: 'INTERNAL_ERROR' },
  SERVICE_UNAVAILABLE: { status: 503, errorCode: 'SERVICE_UNAVAILABLE' },
  /** A write was sent and its outcome could not be learned in time: never a retry invitation (ADR 0020). */
  OUTCOME_UNKNOWN: { status: 504, errorCode: 'OUTCOME_UNKNOWN' },
} as const satisfies Record<string, { status: number; errorCode: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
