/**
 * The four error formats over the real stack: a facade per ERROR_FORMAT (the shared one is `detail`; `envelope`
 * with VALIDATION_STATUS=400, `flat` with LOGIN_FAILURE_STATUS=400 and `problem` are started beside it), each answering
 * validation, 400, 401, 403, 404, 405, 409, 413, 415, 429, 500 and 503 in its one shape; and the `envelope` deployment
 * again with `Accept: application/problem+json` on every request, which gets RFC 9457 problem details instead.
 * 503: a facade whose gateway is a closed port, and a gateway whose users subgraph is; 500: a facade whose "gateway"
 * answers with a schema the facade's operations do not fit (the items subgraph); 429: a facade with RATE_LIMIT_POINTS=4.
 */
import { connect } from 'node:net';
import { http as plainHttp, type HttpOptions, type HttpResponse } from '@platform/testing';
import {
  ADMIN,
  type ExtraProcess,
  closedUrl,
  loginToken,
  registerUser,
  stack,
  startGateway,
  startRest,
  stopAll,
  unique,
} from './test/interface-support';

type Format = 'detail' | 'envelope' | 'flat' | 'problem';
const FORMATS = ['detail', 'envelope', 'flat', 'problem'] as const;

interface Deployment {
  format: Format;
  validationStatus: 400 | 422;
  loginFailureStatus: 400 | 401;
  url: string;
  /** GATEWAY_URL is a closed port. */
  deadGatewayUrl: string;
  /** GATEWAY_URL is the items subgraph (operations fail validation there) and RATE_LIMIT_POINTS=4. */
  unusableGatewayUrl: string;
}

/** `accept`: the `envelope` deployment asked for problem details (its own rate-limited facade, a budget of its own). */
const deployments = new Map<Format | 'accept', Deployment>();
const SETTINGS: Record<Format, { validationStatus: 400 | 422; loginFailureStatus: 400 | 401 }> = {
  detail: { validationStatus: 422, loginFailureStatus: 401 },
  envelope: { validationStatus: 400, loginFailureStatus: 401 },
  flat: { validationStatus: 422, loginFailureStatus: 400 },
  problem: { validationStatus: 422, loginFailureStatus: 401 },
};
let adminToken = '';
let narrowToken = '';
let subgraphDownUrl = '';
const MISSING_ID = 2_147_483_000;

beforeAll(async () => {
  const envFor = (format: Format) => ({
    ERROR_FORMAT: format,
    VALIDATION_STATUS: String(SETTINGS[format].validationStatus),
    LOGIN_FAILURE_STATUS: String(SETTINGS[format].loginFailureStatus),
  });
  const dead = await closedUrl();
  const brokenGateway = await startGateway({ users: await closedUrl() });
  // Started a few at a time: the machine is shared, and ten processes booting at once can starve each other.
  const starters = [
    () => startRest(envFor('envelope')),
    () => startRest(envFor('flat')),
    () => startRest(envFor('problem')),
    () => startRest({ GATEWAY_URL: `${brokenGateway.url}/graphql` }),
    ...FORMATS.flatMap((format) => [
      () => startRest({ ...envFor(format), GATEWAY_URL: dead }),
      () =>
        startRest(
          // Not a gateway: the REST facade's own 404 body at /graphql is nothing the facade can use.
          { ...envFor(format), GATEWAY_URL: `${stack.restUrl}/graphql`, RATE_LIMIT_POINTS: '4' },
          { sharedRedis: false },
        ),
    ]),
    () =>
      startRest(
        { ...envFor('envelope'), GATEWAY_URL: `${stack.restUrl}/graphql`, RATE_LIMIT_POINTS: '4' },
        { sharedRedis: false },
      ),
  ];
  const startedProcesses: ExtraProcess[] = [];
  for (let i = 0; i < starters.length; i += 3) {
    startedProcesses.push(...(await Promise.all(starters.slice(i, i + 3).map((startOne) => startOne()))));
  }
  const [envelope, flat, problem, subgraphDown, ...rest] = startedProcesses;
  subgraphDownUrl = subgraphDown!.url;
  const main: Record<Format, string> = {
    detail: stack.restUrl,
    envelope: envelope!.url,
    flat: flat!.url,
    problem: problem!.url,
  };
  FORMATS.forEach((format, index) => {
    deployments.set(format, {
      format,
      ...SETTINGS[format],
      url: main[format],
      deadGatewayUrl: rest[index * 2]!.url,
      unusableGatewayUrl: rest[index * 2 + 1]!.url,
    });
  });
  deployments.set('accept', {
    ...deployments.get('envelope')!,
    unusableGatewayUrl: rest[FORMATS.length * 2]!.url,
  });
  adminToken = await loginToken(stack.restUrl, ADMIN.username, ADMIN.password);
  narrowToken = await loginToken(stack.restUrl, ADMIN.username, ADMIN.password, 'items:read');
}, 400_000);

afterAll(() => stopAll(), 60_000);

interface Expected {
  status: number;
  /** envelope `errorCode` */
  errorCode: string;
  /** flat `code`; `HTTP_<status>` unless given */
  flatCode?: string;
  message?: string | RegExp;
}

const PROBLEM_MEMBERS = ['type', 'title', 'status', 'detail', 'instance', 'errors', 'code', 'request_id'];

/** The one shape of the deployment, and nothing else in the body. */
function expectShape(format: Format, response: HttpResponse, expected: Expected): void {
  expect(response.status).toBe(expected.status);
  // RFC 9457's media type takes no parameters: exactly `application/problem+json`.
  expect(response.headers.get('content-type')).toBe(
    format === 'problem' ? 'application/problem+json' : 'application/json; charset=utf-8',
  );
  if (response.status === 401) expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  expect(response.headers.get('x-api-version')).toMatch(/^[12]$/);
  let message: string;
  switch (format) {
    case 'detail':
      expect(Object.keys(response.body)).toEqual(['detail']);
      message = response.body.detail;
      break;
    case 'envelope':
      expect(Object.keys(response.body)).toEqual(['error']);
      expect(response.body.error).toMatchObject({
        code: expected.status,
        errorCode: expected.errorCode,
        correlationId: requestId,
      });
      message = response.body.error.message;
      break;
    case 'flat':
      expect(response.body.code).toBe(expected.flatCode ?? `HTTP_${expected.status}`);
      expect(Object.keys(response.body).every((key) => ['code', 'message', 'details'].includes(key))).toBe(
        true,
      );
      message = response.body.message;
      break;
    case 'problem':
      expect(Object.keys(response.body).filter((key) => !PROBLEM_MEMBERS.includes(key))).toEqual([]);
      expect(response.body).toMatchObject({
        type: `https://api-platform.example/problems/${expected.errorCode.toLowerCase().replace(/_/g, '-')}`,
        title: expect.any(String),
        status: expected.status,
        instance: expect.stringMatching(/^\//),
        code: expected.errorCode,
        request_id: requestId,
      });
      message = response.body.detail;
      break;
  }
  expect(typeof message).toBe('string');
  if (expected.message !== undefined) expect(message).toMatch(expected.message);
}

/** Sends `request` as written on a socket of its own and reads the whole answer (the server closes it). */
async function rawRequest(url: string, request: string): Promise<HttpResponse> {
  const { hostname, port } = new URL(url);
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
  const [head = '', text = ''] = raw.split('\r\n\r\n', 2);
  const [statusLine = '', ...fields] = head.split('\r\n');
  const headers = new Headers(
    fields.map((field): [string, string] => [
      field.slice(0, field.indexOf(':')),
      field.slice(field.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, text, body: JSON.parse(text) };
}

/** 5xx bodies: generic text only, no stack, driver, GraphQL or configuration detail. */
function expectGeneric(response: HttpResponse): void {
  expect(response.text).not.toMatch(
    /Cannot query|GRAPHQL|graphql|stack|\bat \w+ \(|mongo|ECONNREFUSED|127\.0\.0\.1|JWT|secret|items/i,
  );
}

/** A deployment's URLs, and the shape its answers must have (`problem` also when asked for by Accept). */
const VARIANTS = [
  ...FORMATS.map((format) => ({
    name: `ERROR_FORMAT=${format}`,
    deployment: format,
    format,
    accept: undefined,
  })),
  {
    name: 'ERROR_FORMAT=envelope, Accept: application/problem+json',
    deployment: 'accept' as const,
    format: 'problem' as const,
    accept: 'application/problem+json',
  },
];

describe.each(VARIANTS)('$name', ({ deployment, format, accept }) => {
  const d = () => deployments.get(deployment)!;
  const withAccept = (options: HttpOptions = {}): HttpOptions =>
    accept ? { ...options, headers: { accept, ...options.headers } } : options;
  const http = {
    get: (url: string, options?: HttpOptions) => plainHttp.get(url, withAccept(options)),
    post: (url: string, options?: HttpOptions) => plainHttp.post(url, withAccept(options)),
    delete: (url: string, options?: HttpOptions) => plainHttp.delete(url, withAccept(options)),
  };

  it('when a registration is invalid, then the validation status names each field in the shape', async () => {
    const response = await http.post(`${d().url}/users/`, {
      json: { username: 'ab', email: 'not-an-email', password: 'short' },
      headers: { 'accept-language': 'es-ES,es;q=0.9,en;q=0.5' },
    });
    expectShape(format, response, {
      status: d().validationStatus,
      errorCode: 'INVALID_INPUT',
      flatCode: 'VALIDATION_ERROR',
      message: /username/,
    });
    const fields = (list: Array<{ field: string; message: string }>) =>
      [...new Set(list.map((entry) => entry.field))].sort();
    if (format === 'envelope') {
      expect(fields(response.body.error.details)).toEqual(['email', 'password', 'username']);
      expect(response.body.error.localizedMessage).toEqual({ es: expect.any(String) });
    }
    if (format === 'flat')
      expect(fields(response.body.details.errors)).toEqual(['email', 'password', 'username']);
    if (format === 'detail') expect(response.body.detail).toMatch(/email/);
    if (format === 'problem') {
      expect(fields(response.body.errors)).toEqual(['email', 'password', 'username']);
      expect(response.body.instance).toBe('/users/');
    }
  });

  it('when the JSON body is malformed, then 400', async () => {
    const response = await http.post(`${d().url}/users/`, {
      body: '{"username": ',
      headers: { 'content-type': 'application/json' },
    });
    expectShape(format, response, { status: 400, errorCode: 'BAD_REQUEST', message: /JSON/ });
  });

  it('when no credential is sent to a protected route, then 401 Not authenticated', async () => {
    const response = await http.get(`${d().url}/users/1`);
    expectShape(format, response, {
      status: 401,
      errorCode: 'UNAUTHENTICATED',
      message: 'Not authenticated',
    });
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('when the token is not valid, then 401 Invalid token', async () => {
    const response = await http.get(`${d().url}/users/1`, { token: 'not.a.jwt' });
    expectShape(format, response, { status: 401, errorCode: 'UNAUTHENTICATED', message: 'Invalid token' });
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    // Another scheme was not a bearer token that failed: the challenge only names the scheme to use.
    const basic = await http.get(`${d().url}/users/1`, { headers: { authorization: 'Basic YWRtaW46eA==' } });
    expect([basic.status, basic.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
  });

  it('when the login is wrong, then the configured LOGIN_FAILURE_STATUS', async () => {
    const response = await http.post(`${d().url}/token`, {
      form: { username: ADMIN.username, password: 'wrong-password-1' },
    });
    expectShape(format, response, {
      status: d().loginFailureStatus,
      errorCode: 'LOGIN_FAILED',
      message: 'Incorrect username or password',
    });
  });

  it('when the token lacks the scope, then 403 names the required scope', async () => {
    const response = await http.get(`${d().url}/users/1`, { token: narrowToken });
    expectShape(format, response, {
      status: 403,
      errorCode: 'FORBIDDEN',
      message: 'Not enough permissions. Required: users:read',
    });
  });

  it('when the user does not exist, then 404 (flat: RESOURCE_NOT_FOUND with the resource)', async () => {
    const response = await http.get(`${d().url}/users/${MISSING_ID}`, { token: adminToken });
    expectShape(format, response, { status: 404, errorCode: 'NOT_FOUND', flatCode: 'RESOURCE_NOT_FOUND' });
    if (format === 'flat')
      expect(response.body.details).toEqual({ resource_type: 'User', resource_id: String(MISSING_ID) });
  });

  it('when the path is unknown, prefixed or not, then 404', async () => {
    for (const path of ['/nowhere', '/v1/nowhere', '/v2/users/1/nowhere']) {
      expectShape(format, await http.get(`${d().url}${path}`, { token: adminToken }), {
        status: 404,
        errorCode: 'NOT_FOUND',
      });
    }
  });

  it("when the request's headers are over 16 KiB, then the HTTP server's 431 comes in the deployment's shape (Accept is not read)", async () => {
    const response = await rawRequest(
      d().url,
      `GET /users/ HTTP/1.1\r\nHost: x\r\n${accept ? `Accept: ${accept}\r\n` : ''}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    // The `accept` variant is the envelope deployment: the headers that would ask for problem details are unread.
    expectShape(accept ? 'envelope' : format, response, {
      status: 431,
      errorCode: 'HEADERS_TOO_LARGE',
      flatCode: 'HTTP_431',
      message: /16 KiB/,
    });
    if (format === 'problem' && !accept) expect(response.body.instance).toBe('/users/');
  });

  it('when a known path gets another method, then 405 with Allow, prefixed or not', async () => {
    for (const path of ['/users/', '/v1/users/', '/v2/users/']) {
      const response = await http.delete(`${d().url}${path}`, { token: adminToken });
      expectShape(format, response, { status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
      expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
    }
    const docs = await http.post(`${d().url}/openapi.json`);
    expectShape(format, docs, { status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
    expect(docs.headers.get('allow')).toBe('GET, HEAD');
  });

  it('when a username is taken, then 409', async () => {
    const account = await registerUser(d().url, 'dup');
    const response = await http.post(`${d().url}/users/`, {
      json: { username: account.username, email: `other${unique()}@example.com`, password: 'another-pass-1' },
    });
    expectShape(format, response, { status: 409, errorCode: 'CONFLICT' });
  });

  it('when the body is over 1 MiB, then 413', async () => {
    const response = await http.post(`${d().url}/users/`, {
      json: { username: 'x'.repeat(1_100_000), email: 'a@example.com', password: 'pass-word-1' },
    });
    expectShape(format, response, { status: 413, errorCode: 'PAYLOAD_TOO_LARGE' });
  });

  it('when the content type is not accepted, then 415', async () => {
    const response = await http.post(`${d().url}/users/`, {
      body: 'username=abc',
      headers: { 'content-type': 'text/plain' },
    });
    expectShape(format, response, { status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it.each([
    [
      'when the gateway is unreachable, then 503 with Retry-After and a generic message',
      'deadGatewayUrl',
      'dead',
      { status: 503, errorCode: 'SERVICE_UNAVAILABLE', message: 'Service temporarily unavailable' },
    ],
    [
      'when the gateway answers with something the facade cannot use, then 500 with a generic message',
      'unusableGatewayUrl',
      'bad',
      { status: 500, errorCode: 'INTERNAL_ERROR', message: 'Internal server error' },
    ],
  ] as const)('%s', async (_name, gateway, prefix, expected) => {
    const response = await http.post(`${d()[gateway]}/users/`, {
      json: {
        username: `${prefix}${unique()}`,
        email: `${prefix}${unique()}@example.com`,
        password: 'pass-word-1',
      },
    });
    expectShape(format, response, expected);
    if (expected.status === 503) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expectGeneric(response);
  });

  it('when the rate limit is spent, then 429 with Retry-After', async () => {
    const statuses: number[] = [];
    let limited: HttpResponse | undefined;
    for (let i = 0; i < 10 && !limited; i += 1) {
      const response = await http.get(`${d().unusableGatewayUrl}/nowhere`);
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses.slice(0, 2)).toEqual([404, 404]);
    expect(limited).toBeDefined();
    expectShape(format, limited!, { status: 429, errorCode: 'RATE_LIMITED' });
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('a subgraph that is down', () => {
  it('when the users subgraph is unreachable, then the routes that need it answer 503 with Retry-After', async () => {
    const response = await plainHttp.get(`${subgraphDownUrl}/users/1`, { token: adminToken });
    expectShape('detail', response, {
      status: 503,
      errorCode: 'SERVICE_UNAVAILABLE',
      message: 'Service temporarily unavailable',
    });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expectGeneric(response);
  });
});
