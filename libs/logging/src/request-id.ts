/** Correlation ids: `X-Request-Id` is accepted when sane, generated otherwise, and forwarded on every hop. */
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(value: string | string[] | undefined): string {
  const candidate = Array.isArray(value) ? value[0] : value;
  return candidate && SAFE_ID.test(candidate) ? candidate : randomUUID();
}
