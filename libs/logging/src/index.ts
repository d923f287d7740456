/** Structured pino logging: one logger per process, redaction of secrets, a child per request carrying its id. */
export { accessLogger, createLogger, type Logger, REDACTED_PATHS } from './logger';
export { requestIdFrom, REQUEST_ID_HEADER } from './request-id';
