/**
 * HTTP hardening of the REST facade: helmet headers and no X-Powered-By on every kind of response, the body limit,
 * the CORS allowlist (own facade with CORS_ORIGINS), and the server request timeout against a trickling client.
 */
import { connect } from 'node:net';
import { ALL_SCOPES, signAccessToken } from '@platform/auth';
import { expectPreflightAllowed, http, suiteApps, testStack } from '@platform/testing';

const stack = testStack();
const token = signAccessToken(
  { sub: 'admin', uid: null, role: 'admin', scopes: [...ALL_SCOPES], kind: 'user' },
  stack.jwtSecret,
  600,
);

describe('HTTP hardening of the REST facade (shared stack)', () => {
  it.each([
    ['a JSON resource', '/users/?limit=1'],
    ['an unknown path', '/no-such-resource'],
    ['the docs page', '/docs'],
  ])('when %s is served, then helmet headers are present and X-Powered-By is not', async (_label, path) => {
    const response = await http.get(`${stack.restUrl}${path}`, { token });
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('strict-transport-security')).toContain('max-age=31536000');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('when a body is larger than MAX_BODY_BYTES, then the answer is 413 in the error shape', async () => {
    const response = await http.post(`${stack.restUrl}/users/`, {
      json: { username: 'x'.repeat(1_100_000), email: 'big@example.com', password: 'password-1' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ detail: expect.any(String) });
  });

  it('when no origin is allowlisted (the default), then no cross-origin read is allowed', async () => {
    const response = await http.get(`${stack.restUrl}/users/?limit=1`, {
      token,
      headers: { origin: 'https://app.example.test' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS allowlist and request timeout (own facade)', () => {
  const ORIGIN = 'https://app.example.test';
  const apps = suiteApps('rest-http-');
  let base: string;
  let port: number;

  beforeAll(async () => {
    ({ url: base, port } = await apps.start('rest', {
      CORS_ORIGINS: `${ORIGIN},https://admin.example.test/`,
      REQUEST_TIMEOUT_MS: '1000',
    }));
  }, 60_000);

  it('when an allowlisted origin sends a preflight, then it is answered 204 with the allowed methods and headers', async () => {
    const response = await expectPreflightAllowed(`${base}/items/`, ORIGIN, 'authorization, content-type');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toMatch(/origin/i);
  });

  it('when an allowlisted origin reads, then the response allows it and exposes the rate-limit headers', async () => {
    const response = await http.get(`${base}/users/?limit=1`, {
      token,
      headers: { origin: 'https://admin.example.test' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://admin.example.test');
    expect(response.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    expect(response.headers.get('access-control-expose-headers')).toContain('Retry-After');
  });

  it('when another origin reads or preflights, then no CORS header allows it', async () => {
    const read = await http.get(`${base}/users/?limit=1`, {
      token,
      headers: { origin: 'https://evil.example.test' },
    });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${base}/items/`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.test', 'access-control-request-method': 'DELETE' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('when a client sends its headers and then trickles nothing of the body, then the server cuts it off with 408 and closes the connection, even if the client keeps its end open', async () => {
    const began = performance.now();
    const { answer, closed } = await new Promise<{ answer: string; closed: boolean }>((resolve) => {
      // allowHalfOpen: this client never closes its side (a slow-loris); the server must drop the connection itself.
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      let received = '';
      let keepWriting: NodeJS.Timeout | undefined;
      const finish = (closed: boolean) => {
        clearInterval(keepWriting);
        clearTimeout(guard);
        socket.destroy();
        resolve({ answer: received, closed });
      };
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      // Once answered, the client keeps sending: a server that still holds the socket takes it in silence; one that
      // dropped it resets the connection.
      socket.on('end', () => {
        keepWriting = setInterval(() => socket.write('x'), 50);
      });
      socket.on('close', () => finish(true));
      socket.on('error', () => finish(true));
      const guard = setTimeout(() => finish(false), 8_000);
      socket.on('connect', () =>
        socket.write(
          `POST /users/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user`,
        ),
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    // In the deployment's error shape (the shared stack's `detail`), not a bare status line.
    expect(answer).toMatch(/\r\n\r\n\{"detail":"The request did not arrive in time"\}$/);
    expect(closed).toBe(true);
    expect(performance.now() - began).toBeLessThan(5_000);
  });

  it('when a malformed request is pipelined behind a create, then the create is answered first (201), and the connection closes after it', async () => {
    const body = JSON.stringify({ name: `pipelined-${Date.now()}`, price: 1 });
    const create =
      `POST /items/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`${create}GARBAGE\r\n\r\n`));
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
      setTimeout(() => socket.destroy(), 8_000);
    });
    // The first answer on the wire belongs to the first request (RFC 9112 §9.3.2): a client reading a 400 there would
    // take its create for refused although the record exists.
    expect([...answer.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1])[0]).toBe('201');
  });
});
