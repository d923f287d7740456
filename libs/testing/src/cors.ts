/** CORS checks both HTTP front doors (REST facade and gateway) make the same way. */

/**
 * Sends the preflight a browser sends before a POST from `origin` with `requestHeaders`, asserts it is answered 204
 * allowing that origin, POST and the authorization header, and returns the response for further checks.
 */
export async function expectPreflightAllowed(
  url: string,
  origin: string,
  requestHeaders: string,
): Promise<Response> {
  const response = await fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': requestHeaders,
    },
  });
  expect(response.status).toBe(204);
  expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  expect(response.headers.get('access-control-allow-methods')).toContain('POST');
  expect(response.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
  return response;
}
