import { AppError, notFound, renderError, validationError, type RenderOptions } from './index';

const base: Omit<RenderOptions, 'format'> = { validationStatus: 422, loginFailureStatus: 401, correlationId: 'req-1' };

describe('renderError', () => {
  const invalid = validationError([{ field: 'username', message: 'must be at least 3 characters' }]);

  it('when the format is detail, then the body is one detail string naming the field', () => {
    const rendered = renderError(invalid, { ...base, format: 'detail' });
    expect(rendered.status).toBe(422);
    expect(rendered.body).toEqual({ detail: 'Validation failed: username: must be at least 3 characters' });
  });

  it('when the format is envelope, then code, message, details, errorCode, correlationId and a localized message appear', () => {
    const rendered = renderError(invalid, { ...base, format: 'envelope', validationStatus: 400, acceptLanguage: 'es-ES,en;q=0.5' });
    expect(rendered.status).toBe(400);
    expect(rendered.body).toEqual({
      error: {
        code: 400,
        message: 'Validation failed: username: must be at least 3 characters',
        details: [{ field: 'username', message: 'must be at least 3 characters' }],
        errorCode: 'INVALID_INPUT',
        localizedMessage: { es: 'La solicitud contiene datos no válidos.' },
        correlationId: 'req-1',
      },
    });
  });

  it('when the format is flat, then validation, not-found and other errors use their codes', () => {
    expect(renderError(invalid, { ...base, format: 'flat' }).body).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Validation failed: username: must be at least 3 characters',
      details: { errors: [{ field: 'username', message: 'must be at least 3 characters' }] },
    });
    expect(renderError(notFound('User', 7), { ...base, format: 'flat' }).body).toEqual({
      code: 'RESOURCE_NOT_FOUND',
      message: 'User 7 not found',
      details: { resource_type: 'User', resource_id: '7' },
    });
    expect(renderError(new AppError('FORBIDDEN', 'nope'), { ...base, format: 'flat' })).toMatchObject({
      status: 403,
      body: { code: 'HTTP_403', message: 'nope' },
    });
  });

  it('when the format is problem, then RFC 9457 members, the field errors and the request id appear as problem+json', () => {
    const rendered = renderError(invalid, { ...base, format: 'problem', instance: '/users/' });
    expect(rendered.status).toBe(422);
    expect(rendered.contentType).toBe('application/problem+json');
    expect(rendered.body).toEqual({
      type: 'https://api-platform.example/problems/invalid-input',
      title: 'Validation failed',
      status: 422,
      detail: 'Validation failed: username: must be at least 3 characters',
      instance: '/users/',
      errors: [{ field: 'username', message: 'must be at least 3 characters' }],
      code: 'INVALID_INPUT',
      request_id: 'req-1',
    });
    expect(renderError(new AppError('RATE_LIMITED', 'Rate limit exceeded', { headers: { 'retry-after': '3' } }), { ...base, format: 'problem' })).toMatchObject({
      status: 429,
      headers: { 'retry-after': '3' },
      body: { type: 'https://api-platform.example/problems/rate-limited', title: 'Too many requests', status: 429 },
    });
    expect(renderError(notFound('User', 7), { ...base, format: 'detail' }).contentType).toBe('application/json');
  });

  it('when an unexpected error is rendered, then the body is generic in every format', () => {
    const leaky = new Error('E11000 duplicate key mongodb://admin:pw@db:27017 at Collection.insert');
    for (const format of ['detail', 'envelope', 'flat', 'problem'] as const) {
      const rendered = renderError(leaky, { ...base, format });
      expect(rendered.status).toBe(500);
      expect(JSON.stringify(rendered.body)).not.toMatch(/E11000|mongodb|insert|pw/);
      expect(JSON.stringify(rendered.body)).toContain('Internal server error');
    }
  });

  it('when a login fails, then the configured status is used', () => {
    expect(renderError(new AppError('LOGIN_FAILED', 'Incorrect username or password'), { ...base, format: 'detail', loginFailureStatus: 400 }).status).toBe(400);
  });
});
