/** Validates process.env against a zod schema and fails fast with every error listed. */
import type { z } from 'zod';

export class EnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnvironmentError';
  }
}

/**
 * Parses `source` (process.env by default). With `exitOnError` (the default for services) it prints every
 * problem to stderr and exits 1; otherwise it throws an EnvironmentError, which tests use.
 */
export function loadEnvironment<S extends z.ZodType>(
  schema: S,
  options: { source?: Record<string, string | undefined>; exitOnError?: boolean } = {},
): z.infer<S> {
  const source = options.source ?? process.env;
  const result = schema.safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  const error = new EnvironmentError(problems);
  if (options.exitOnError ?? true) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
