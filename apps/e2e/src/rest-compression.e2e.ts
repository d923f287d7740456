/**
 * Compressed answers over the real stack (issue 27 item 4, ADR 0027): Brotli and gzip per Accept-Encoding above the
 * threshold, none for tiny answers and HEAD, Vary on every answer, strong ETags that name their coding with 304 and
 * If-Match working across codings, and the gateway's GraphQL answers compressed too. Bytes are read off the wire
 * (undici's `request` does not decode), so what is measured is what a client downloads.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { member, rest, gatewayGraphql, type Member } from './test/resources-support';

jest.setTimeout(120_000);

interface Wire {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent. */
  raw: Buffer;
  /** The body decoded per Content-Encoding. */
  text: string;
}

async function wire(
  url: string,
  options: { token: string; encoding?: string; headers?: Record<string, string>; method?: 'GET' | 'HEAD' | 'PATCH' | 'POST'; body?: unknown },
): Promise<Wire> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, ...options.headers };
  if (options.encoding !== undefined) headers['accept-encoding'] = options.encoding;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const raw = Buffer.from(await response.body.arrayBuffer());
  const coding = response.headers['content-encoding'];
  const decoded = coding === 'br' ? brotliDecompressSync(raw) : coding === 'gzip' ? gunzipSync(raw) : raw;
  return { status: response.statusCode, headers: response.headers, raw, text: decoded.toString('utf8') };
}

let alice: Member;
const ids: number[] = [];
let bigItemId: number;

beforeAll(async () => {
  alice = await member('gzip');
  // 100 items of realistic, varied text: names and descriptions as a catalogue would hold them.
  for (let i = 0; i < 100; i += 1) {
    const created = await wire(rest('/items/'), {
      token: alice.token,
      method: 'POST',
      body: {
        name: `Compressible item ${i} of ${alice.username}`,
        description: `Item number ${i}: a sturdy, brass desk lamp with a ${20 + (i % 30)} cm arm and a linen shade.`,
        price: 10 + i,
      },
    });
    expect(created.status).toBe(201);
    ids.push(JSON.parse(created.text).id);
  }
  const big = await wire(rest('/items/'), {
    token: alice.token,
    method: 'POST',
    body: { name: 'A long one', description: 'lorem ipsum dolor sit amet '.repeat(120), price: 1 },
  });
  bigItemId = JSON.parse(big.text).id;
});

const page = () => rest(`/items/?owner_id=${alice.id}&limit=100`);

describe('compressed answers', () => {
  it.each(['br', 'gzip'])(
    'when a 100-record page is asked with Accept-Encoding: %s, then it is at least 4x smaller on the wire and decodes to the same JSON',
    async (coding) => {
      const plain = await wire(page(), { token: alice.token, encoding: 'identity' });
      const compressed = await wire(page(), { token: alice.token, encoding: coding });
      expect(plain.status).toBe(200);
      expect(JSON.parse(plain.text)).toHaveLength(100);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(compressed.headers['content-encoding']).toBe(coding);
      expect(compressed.headers['vary']).toMatch(/accept-encoding/i);
      expect(JSON.parse(compressed.text)).toEqual(JSON.parse(plain.text));
      expect(plain.raw.length / compressed.raw.length).toBeGreaterThanOrEqual(4);
    },
  );

  it('when both are acceptable, then Brotli is chosen; q=0 refuses a coding', async () => {
    expect((await wire(page(), { token: alice.token, encoding: 'gzip, deflate, br' })).headers['content-encoding']).toBe('br');
    expect((await wire(page(), { token: alice.token, encoding: 'br;q=0, gzip' })).headers['content-encoding']).toBe('gzip');
  });

  it('when an answer is tiny, or the request is a HEAD, then it is not compressed, and still says Vary: Accept-Encoding', async () => {
    const small = await wire(rest(`/items/${ids[0]}`), { token: alice.token, encoding: 'br, gzip' });
    expect(small.status).toBe(200);
    expect(small.raw.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers['vary']).toMatch(/accept-encoding/i);
    const head = await wire(page(), { token: alice.token, encoding: 'br, gzip', method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBeUndefined();
  });

  it('when a record is served in several codings, then each strong ETag names its coding, a 304 works with any of them, and If-Match takes them', async () => {
    const url = rest(`/items/${bigItemId}`);
    const identity = await wire(url, { token: alice.token, encoding: 'identity' });
    const br = await wire(url, { token: alice.token, encoding: 'br' });
    const gzip = await wire(url, { token: alice.token, encoding: 'gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    const tag = identity.headers['etag'] as string;
    expect(tag).toMatch(/^"\d+\.r2"$/);
    expect(br.headers['etag']).toBe(`${tag.slice(0, -1)}-br"`);
    expect(gzip.headers['etag']).toBe(`${tag.slice(0, -1)}-gzip"`);

    const notModified = await wire(url, {
      token: alice.token,
      encoding: 'br',
      headers: { 'if-none-match': br.headers['etag'] as string },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.raw.length).toBe(0);
    expect(notModified.headers['etag']).toBe(br.headers['etag']);
    expect(notModified.headers['vary']).toMatch(/accept-encoding/i);
    // The identity tag is still a current representation's: a client that decoded and kept it gets its 304 too.
    expect(
      (await wire(url, { token: alice.token, encoding: 'gzip', headers: { 'if-none-match': tag } })).status,
    ).toBe(304);

    const patched = await wire(url, {
      token: alice.token,
      method: 'PATCH',
      body: { price: 2 },
      headers: { 'if-match': br.headers['etag'] as string },
    });
    expect(patched.status).toBe(200);
    // The old tag, in any coding, is stale now: 200 with the new one, and If-Match with it fails.
    const after = await wire(url, { token: alice.token, encoding: 'br', headers: { 'if-none-match': br.headers['etag'] as string } });
    expect(after.status).toBe(200);
    expect(after.headers['etag']).not.toBe(br.headers['etag']);
    const stale = await wire(url, {
      token: alice.token,
      method: 'PATCH',
      body: { price: 3 },
      headers: { 'if-match': gzip.headers['etag'] as string },
    });
    expect(stale.status).toBe(412);
  });

  it("when a listing is compressed, then its weak ETag is the identity answer's, and If-None-Match answers 304", async () => {
    const plain = await wire(page(), { token: alice.token, encoding: 'identity' });
    const br = await wire(page(), { token: alice.token, encoding: 'br' });
    expect(plain.headers['etag']).toMatch(/^W\//);
    expect(br.headers['etag']).toBe(plain.headers['etag']);
    const cached = await wire(page(), {
      token: alice.token,
      encoding: 'br',
      headers: { 'if-none-match': br.headers['etag'] as string },
    });
    expect(cached.status).toBe(304);
  });

  it('when a GraphQL client asks the gateway for a large answer with Accept-Encoding: gzip, then it is compressed', async () => {
    const query = `query Page($filter: ItemFilter) { items(first: 100, filter: $filter) { nodes { id name description price } } }`;
    const response = await request(gatewayGraphql, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json', 'accept-encoding': 'gzip' },
      body: JSON.stringify({ query, variables: { filter: { ownerId: { eq: String(alice.id) } } } }),
    });
    const raw = Buffer.from(await response.body.arrayBuffer());
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    const body = JSON.parse(gunzipSync(raw).toString('utf8'));
    expect(body.errors).toBeUndefined();
    expect(body.data.items.nodes).toHaveLength(100);
  });
});
