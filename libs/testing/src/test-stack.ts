/** What jest's globalSetup started, as tests see it (URLs and the shared secrets, passed through the environment). */
export interface TestStack {
  rootDir: string;
  restUrl: string;
  gatewayUrl: string;
  mongoUrl: string;
  /** The run's PostgreSQL cluster (its `postgres` database), where tests' own FerretDBs get databases of their own. */
  postgresUrl: string;
  redisUrl: string;
  jwtSecret: string;
  /** SUBGRAPH_SECRET, generated per run: the stack runs in production mode, which requires it. */
  subgraphSecret: string;
  urls: Record<string, string>;
  /** Each process's Prometheus endpoint (its METRICS_PORT). */
  metricsUrls: Record<string, string>;
  /** The shared facade's GATEWAY_MODE: `embedded` (the default) or `remote` (TEST_GATEWAY_MODE=remote). */
  gatewayMode: 'embedded' | 'remote';
  /** The certificate webhook receivers present (the stack's processes trust it: production delivers to https only). */
  webhookTls: { certFile: string; keyFile: string };
}

export function testStack(): TestStack {
  const raw = process.env['TEST_STACK'];
  if (!raw)
    throw new Error('TEST_STACK is not set: run this test through jest (globalSetup starts the stack)');
  return JSON.parse(raw) as TestStack;
}

/** What the stack's gateway presents to its subgraphs (what a test calling a subgraph directly must present too). */
export const stackSubgraphSecret = (stack: TestStack): string => stack.subgraphSecret;
