/** The error body schemas of the three formats (CONTRACT.md "Errors"); OpenAPI shows the configured one. */
import { z } from 'zod';
import type { ErrorFormat } from '@platform/errors';

const FieldErrorSchema = z.object({ field: z.string(), message: z.string() });

export const DetailError = z
  .object({ detail: z.string() })
  .meta({ id: 'DetailError', example: { detail: 'Not authenticated' } });

export const EnvelopeError = z
  .object({
    error: z.object({
      code: z.number().int(),
      message: z.string(),
      details: z.array(FieldErrorSchema).optional(),
      errorCode: z.string().optional(),
      localizedMessage: z.record(z.string(), z.string()).optional(),
      correlationId: z.string().optional(),
    }),
  })
  .meta({
    id: 'EnvelopeError',
    example: {
      error: { code: 404, message: 'User 7 not found', errorCode: 'NOT_FOUND', correlationId: 'c0ffee' },
    },
  });

export const FlatError = z
  .object({
    code: z.string(),
    message: z.string(),
    details: z
      .union([
        z.object({ errors: z.array(FieldErrorSchema) }),
        z.object({ resource_type: z.string(), resource_id: z.string() }),
      ])
      .optional(),
  })
  .meta({
    id: 'FlatError',
    example: {
      code: 'RESOURCE_NOT_FOUND',
      message: 'User 7 not found',
      details: { resource_type: 'User', resource_id: '7' },
    },
  });

export function errorResponseSchema(format: ErrorFormat): z.ZodType {
  return format === 'envelope' ? EnvelopeError : format === 'flat' ? FlatError : DetailError;
}
