/** Recognises driver errors the domain turns into client errors (duplicate keys), without leaking driver text. */
import { MongoServerError } from 'mongodb';

export const isDuplicateKeyError = (error: unknown): error is MongoServerError =>
  error instanceof MongoServerError && error.code === 11000;

/** The field of a unique index a duplicate-key error names, from keyPattern or, failing that, the index name. */
export function duplicateKeyField(error: MongoServerError): string | undefined {
  const pattern = (error as { keyPattern?: Record<string, unknown> }).keyPattern;
  if (pattern) return Object.keys(pattern)[0];
  const match = /index: (\w+?)_/.exec(error.message);
  return match?.[1];
}
