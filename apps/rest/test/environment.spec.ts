/**
 * The facade's mode by default (ADR 0007): with nothing set it runs the gateway's executor in-process and reads the
 * supergraph settings; `remote` goes to the gateway process at GATEWAY_URL.
 */
import { loadRestEnvironment } from '../src/environment';

const base = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(48) };

describe('GATEWAY_MODE', () => {
  it('when nothing sets it, then the facade runs embedded with the subgraph URLs and the read cache and dedup on', () => {
    const env = loadRestEnvironment(base);
    expect(env).toMatchObject({
      GATEWAY_MODE: 'embedded',
      USERS_SUBGRAPH_URL: 'http://127.0.0.1:4001/graphql',
      POSTS_SUBGRAPH_URL: 'http://127.0.0.1:4004/graphql',
      READ_CACHE: true,
      SUBGRAPH_DEDUP: true,
    });
  });

  it('when it is remote, then the facade goes to GATEWAY_URL; anything else is refused', () => {
    expect(loadRestEnvironment({ ...base, GATEWAY_MODE: 'remote', GATEWAY_URL: 'http://gw:4000/graphql' })).toMatchObject({
      GATEWAY_MODE: 'remote',
      GATEWAY_URL: 'http://gw:4000/graphql',
    });
    expect(() => loadRestEnvironment({ ...base, GATEWAY_MODE: 'both' })).toThrow(/GATEWAY_MODE/);
  });
});
