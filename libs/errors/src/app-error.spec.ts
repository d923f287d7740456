import { AppError } from './app-error';

describe('AppError', () => {
  it('when a client error (4xx) is made, then it carries no stack frames and the stack limit is left as it was', () => {
    const limit = Error.stackTraceLimit;
    const error = new AppError('NOT_FOUND', 'User 7 not found', { resource: { type: 'User', id: '7' } });
    expect(error.stack).not.toContain('\n    at ');
    expect(error).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
      message: 'User 7 not found',
      name: 'AppError',
    });
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it('when a server error (5xx) is made, then its stack points at where it was made, for the logs', () => {
    const error = new AppError('INTERNAL_SERVER_ERROR', 'boom', { cause: new Error('driver detail') });
    expect(error.stack).toContain('\n    at ');
    expect(error.stack).toContain('app-error.spec');
    expect(error.status).toBe(500);
    expect((error.cause as Error).message).toBe('driver detail');
  });
});
