/**
 * Credentials are checked against their alphabet before they travel: an API key or bearer token holding a newline,
 * a NUL, a space or a character outside Latin-1 is a 401 (`Invalid API Key` / `Invalid token`) in the deployment's
 * error shape at the REST facade (header, `?api_key=`, cookie) and at the gateway, never a 503 from a forwarded
 * header that the HTTP client refuses.
 */
import { connect } from 'node:net';
import { http, testStack } from '@platform/testing';

const stack = testStack();
const gql = `${stack.gatewayUrl}/graphql`;

/** Each bad character inside an otherwise key-shaped value (`ak_` + base64url, as generated keys look). */
const BAD_VALUES: Array<[string, string]> = [
  ['a newline', 'ak_abc\ndef'],
  ['a NUL', 'ak_abc\u0000def'],
  ['a space', 'ak_abc def'],
  ['é (Latin-1, not ASCII)', 'ak_abcédef'],
  ['漢 (not Latin-1)', 'ak_abc漢def'],
];

/** A JWT-shaped token with the bad character in its signature segment. */
const badJwt = (value: string) => `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.${value}`;

interface RawResponse {
  status: number;
  body: unknown;
}

/**
 * One HTTP/1.1 request written byte for byte: header values travel as UTF-8 bytes, which fetch and node:http refuse
 * to send (a real client can still send them). Returns the status and the JSON body (empty object when none).
 */
function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== '') lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
  const request = Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'utf8');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () => socket.destroy(new Error('raw request timed out')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const head = text.slice(0, split);
      let payload = text.slice(split + 4);
      if (/^transfer-encoding: chunked/im.test(head)) payload = dechunk(payload);
      let parsed: unknown = {};
      try {
        parsed = payload === '' ? {} : JSON.parse(payload);
      } catch {
        parsed = payload;
      }
      resolve({ status, body: parsed });
    });
  });
}

function dechunk(payload: string): string {
  let out = '';
  let rest = payload;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/** Characters a header line cannot carry at all (the HTTP parser refuses the request before any app code runs). */
const UNSENDABLE_IN_HEADER = { test: (value: string) => value.includes('\n') || value.includes('\u0000') };

describe('credentials outside their alphabet, at the REST facade', () => {
  it.each(BAD_VALUES)(
    'when an API key with %s is sent as ?api_key=, then 401 Invalid API Key',
    async (_label, key) => {
      const response = await http.get(`${stack.restUrl}/items/5?api_key=${encodeURIComponent(key)}`);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 401,
        body: { detail: 'Invalid API Key' },
      });
    },
  );

  it.each(BAD_VALUES)(
    'when an API key with %s is sent as the api_key cookie (percent-encoded), then 401 Invalid API Key',
    async (_label, key) => {
      const response = await http.get(`${stack.restUrl}/items/5`, {
        headers: { cookie: `theme=dark; api_key=${encodeURIComponent(key)}` },
      });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 401,
        body: { detail: 'Invalid API Key' },
      });
    },
  );

  it.each(BAD_VALUES.filter(([, value]) => !UNSENDABLE_IN_HEADER.test(value)))(
    'when an API key with %s is sent raw in the X-API-Key header or the cookie, then 401 Invalid API Key',
    async (_label, key) => {
      const variants: Array<Record<string, string>> = [{ 'X-API-Key': key }, { Cookie: `api_key=${key}` }];
      for (const headers of variants) {
        const response = await rawRequest(stack.restUrl, 'GET', '/items/5', headers);
        expect({ headers, ...response }).toEqual({
          headers,
          status: 401,
          body: { detail: 'Invalid API Key' },
        });
      }
    },
  );

  it.each(BAD_VALUES.filter(([, value]) => !UNSENDABLE_IN_HEADER.test(value)))(
    'when a bearer token with %s is sent, then 401 Invalid token',
    async (_label, value) => {
      const response = await rawRequest(stack.restUrl, 'GET', '/items/5', {
        Authorization: `Bearer ${badJwt(value)}`,
      });
      expect(response).toEqual({ status: 401, body: { detail: 'Invalid token' } });
    },
  );

  it('when a header carries a NUL or a bare newline, then the HTTP parser refuses it with 400, never a 5xx', async () => {
    const variants: Array<Record<string, string>> = [
      { 'X-API-Key': 'ak_abc\u0000def' },
      { Authorization: 'Bearer abc\u0000def' },
    ];
    for (const headers of variants) {
      const response = await rawRequest(stack.restUrl, 'GET', '/items/5', headers);
      expect({ headers, status: response.status }).toEqual({ headers, status: 400 });
    }
  });

  it('when a bearer token and a bad API key come together, then the key is refused before anything travels', async () => {
    const response = await http.get(`${stack.restUrl}/items/5?api_key=${encodeURIComponent('ak_a\nb')}`, {
      token: badJwt('abc'),
    });
    expect(response.status).toBe(401);
  });

  it('when a valid-alphabet but unknown key or token is sent, then the answers are unchanged (401 from verification)', async () => {
    const key = await http.get(`${stack.restUrl}/items/5?api_key=ak_${'A'.repeat(43)}`);
    expect({ status: key.status, body: key.body }).toEqual({
      status: 401,
      body: { detail: 'Invalid API Key' },
    });
    const token = await http.get(`${stack.restUrl}/items/5`, { token: badJwt('abc') });
    expect({ status: token.status, body: token.body }).toEqual({
      status: 401,
      body: { detail: 'Invalid token' },
    });
  });
});

describe('credentials outside their alphabet, at the gateway', () => {
  const query = JSON.stringify({ query: '{ items(first: 1) { totalCount } }' });

  it.each(BAD_VALUES.filter(([, value]) => !UNSENDABLE_IN_HEADER.test(value)))(
    'when an API key with %s is sent in X-API-Key, then 401 UNAUTHENTICATED Invalid API Key',
    async (_label, key) => {
      const response = await rawRequest(stack.gatewayUrl, 'POST', '/graphql', { 'X-API-Key': key }, query);
      expect(response).toEqual({
        status: 401,
        body: { errors: [{ message: 'Invalid API Key', extensions: { code: 'UNAUTHENTICATED' } }] },
      });
    },
  );

  it.each(BAD_VALUES.filter(([, value]) => !UNSENDABLE_IN_HEADER.test(value)))(
    'when a bearer token with %s is sent, then 401 UNAUTHENTICATED Invalid token',
    async (_label, value) => {
      const response = await rawRequest(
        stack.gatewayUrl,
        'POST',
        '/graphql',
        { Authorization: `Bearer ${badJwt(value)}` },
        query,
      );
      expect(response).toEqual({
        status: 401,
        body: { errors: [{ message: 'Invalid token', extensions: { code: 'UNAUTHENTICATED' } }] },
      });
    },
  );

  it('when a well-formed bearer token is sent to a public operation, then it is not refused at the entry', async () => {
    const response = await http.graphql(gql, '{ __typename }', {}, { token: badJwt('abc') });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { __typename: 'Query' } });
  });
});
