/** Validates process.env against a zod schema and fails fast with every error listed. */
import { z } from 'zod';

export class EnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnvironmentError';
  }
}

const fromEnvironment = new Set<string>();

/**
 * The names (never the values: some are secrets) of the settings this process took from its environment that differ
 * from their defaults, over every loadEnvironment so far; each process logs them once at start (libs/service).
 */
export function settingsFromEnvironment(): string[] {
  return [...fromEnvironment].sort();
}

/** A schema's fields: z.object(...) (refinements keep it one), or the input side of a pipe. */
function fieldsOf(schema: z.ZodType): Record<string, z.ZodType> {
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodPipe) return fieldsOf(schema.in as z.ZodType);
  return {};
}

/** The fields `source` sets to something other than what the field gives when unset. */
export function changedSettings(
  schema: z.ZodType,
  source: Record<string, string | undefined>,
  parsed: unknown,
): string[] {
  const values = (parsed ?? {}) as Record<string, unknown>;
  return Object.entries(fieldsOf(schema))
    .filter(([name, field]) => {
      if (source[name] === undefined) return false;
      const fallback = field.safeParse(undefined);
      return !fallback.success || JSON.stringify(fallback.data) !== JSON.stringify(values[name]);
    })
    .map(([name]) => name);
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
  if (result.success) {
    for (const name of changedSettings(schema, source, result.data)) fromEnvironment.add(name);
    return result.data;
  }
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
  );
  const error = new EnvironmentError(problems);
  if (options.exitOnError ?? true) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
