/**
 * The codings the facade and the gateway serve (docs/interface.md#compression), through the middleware on a real node
 * HTTP server, bytes read off the wire: Brotli and gzip as Accept-Encoding prefers, never deflate.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { responseCompression } from './response-compression';

const BODY = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `record ${i}` })) });
let server: Server;
let url: string;

beforeAll(async () => {
  const compress = responseCompression(1_024);
  server = createServer((req, res) =>
    compress(req, res, () => {
      res.setHeader('content-type', 'application/json');
      res.end(BODY);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function fetchWith(acceptEncoding: string) {
  const response = await request(url, { headers: { 'accept-encoding': acceptEncoding } });
  const raw = Buffer.from(await response.body.arrayBuffer());
  const coding = response.headers['content-encoding'] as string | undefined;
  const decoded = coding === 'br' ? brotliDecompressSync(raw) : coding === 'gzip' ? gunzipSync(raw) : raw;
  return { coding, vary: response.headers['vary'], text: decoded.toString('utf8') };
}

describe('response codings', () => {
  it.each([
    ['deflate', undefined],
    ['DEFLATE;q=1', undefined],
    ['deflate, identity;q=0.5', undefined],
    ['deflate, gzip;q=0.5', 'gzip'],
    ['deflate;q=1, br;q=0.1', 'br'],
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['*', 'br'],
    ['identity', undefined],
  ])('when Accept-Encoding is %j, then the answer is coded %s (never deflate) and decodes to the body', async (accepted, expected) => {
    const answer = await fetchWith(accepted);
    expect({ accepted, coding: answer.coding }).toEqual({ accepted, coding: expected });
    expect(answer.text).toBe(BODY);
    expect(answer.vary).toMatch(/accept-encoding/i);
  });
});
