/**
 * The error body schemas of the four formats (docs/interface.md#error-formats); OpenAPI shows the configured one as
 * `application/json` and problem details as `application/problem+json` (what `Accept` selects on any deployment).
 */
import { z } from 'zod';
import { ERROR_CODES, PROBLEM_TYPE_BASE, problemTypeOf, type ErrorFormat } from '@platform/errors';

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

const PROBLEM_TYPES = [...new Set(Object.values(ERROR_CODES).map((entry) => problemTypeOf(entry.errorCode)))];

/** RFC 9457 problem details, with this API's extension members `errors`, `code` and `request_id`. */
export const ProblemDetails = z
  .object({
    type: z
      .enum(PROBLEM_TYPES as [string, ...string[]])
      .describe(
        `The problem type: \`${PROBLEM_TYPE_BASE}<code in kebab case>\`, one per \`code\`; an identifier, not a page to fetch.`,
      ),
    title: z.string().max(100).describe('Short summary of the problem type; the same for every occurrence.'),
    status: z.number().int().min(400).max(599).describe('The HTTP status of this response.'),
    detail: text().describe('What went wrong in this occurrence (5xx: a generic text).'),
    instance: text().optional().describe('The request path this occurrence belongs to.'),
    errors: z
      .array(FieldErrorSchema)
      .max(DETAILS_MAX)
      .optional()
      .describe('Validation failures: each offending field.'),
    code: z
      .string()
      .max(64)
      .regex(/^[A-Z][A-Z0-9_]*$/)
      .describe("Machine-readable error code (the envelope format's `errorCode`)."),
    request_id: z.string().max(128).optional().describe('The correlation id, as in the X-Request-Id header.'),
  })
  .meta({
    id: 'ProblemDetails',
    description: 'RFC 9457 problem details (`application/problem+json`).',
    example: {
      type: problemTypeOf('NOT_FOUND'),
      title: 'Not found',
      status: 404,
      detail: 'User 7 not found',
      instance: '/users/7',
      code: 'NOT_FOUND',
      request_id: '0b5e2d6c-6a4f-4d0e-9f51-8a7f2c1d3e4b',
    },
  });

export function errorResponseSchema(format: ErrorFormat): z.ZodType {
  switch (format) {
    case 'envelope':
      return EnvelopeError;
    case 'flat':
      return FlatError;
    case 'problem':
      return ProblemDetails;
    case 'detail':
    default:
      return DetailError;
  }
}
