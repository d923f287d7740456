/** What the listing specs share: the cursor secret they sign with and the one field error a call fails with. */
import { AppError } from '@platform/errors';
import { deriveCursorSecret } from './cursor-codec';

export const secret = deriveCursorSecret('unit-test-jwt-secret-0123456789');

/** The single field error (BAD_USER_INPUT) a call fails with. */
export function fieldError(run: () => unknown): { field: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.code).toBe('BAD_USER_INPUT');
    expect(appError.details).toHaveLength(1);
    return appError.details![0]!;
  }
  throw new Error('expected a validation error');
}
