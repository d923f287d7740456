/** The error body schemas of the three formats (CONTRACT.md "Errors"); OpenAPI shows the configured one. */
import { z } from 'zod';
import type { ErrorFormat } from '@platform/errors';

/**
 * Error texts name the offending fields, which come from the request itself, so their length is bounded by the request
 * (MAX_BODY_BYTES and the URL limit), not by a constant of their own: these bounds are that ceiling.
 */
const TEXT_MAX = 16 * 1024 * 1024;
const DETAILS_MAX = 100_000;
const text = () => z.string().max(TEXT_MAX);
const FieldErrorSchema = z.object({ field: text(), message: text() });

export const DetailError = z
  .object({ detail: text() })
  .meta({ id: 'DetailError', example: { detail: 'Not authenticated' } });

export const EnvelopeError = z
  .object({
    error: z.object({
      code: z.number().int().min(400).max(599),
      message: text(),
      details: z.array(FieldErrorSchema).max(DETAILS_MAX).optional(),
      errorCode: z.string().max(64).regex(/^[A-Z][A-Z0-9_]*$/).optional(),
      localizedMessage: z.record(z.string().max(35), text()).optional(),
      correlationId: z.string().max(128).optional(),
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
    code: z.string().max(64).regex(/^[A-Z][A-Z0-9_]*$/),
    message: text(),
    details: z
      .union([
        z.object({ errors: z.array(FieldErrorSchema).max(DETAILS_MAX) }),
        z.object({ resource_type: z.string().max(64), resource_id: text() }),
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
