/** Validates input against a schema; failures become one 422 AppError naming each offending field. */
import type { z } from 'zod';
import { validationError, type FieldError } from '@platform/errors';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details: FieldError[] = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = [prefix, path].filter(Boolean).join('.') || prefix || 'body';
    return { field, message: issue.message };
  });
  throw validationError(details);
}
