/** How every request and response body of the contracts is declared. */
import { z } from 'zod';

/**
 * A body: a strict object (a field it does not name is a validation error naming that field), registered under `id`
 * for the generated OpenAPI document with its description and example.
 */
export function strictBody<S extends z.ZodRawShape>(
  id: string,
  shape: S,
  meta: { description: string; example?: unknown },
) {
  return z.object(shape).strict().meta({ id, ...meta });
}
