/** The infrastructure every component and e2e test may use (jest/infra.ts): one per run, passed through the environment. */
export interface TestInfra {
  rootDir: string;
  mongoUrl: string;
  /** The run's PostgreSQL cluster (its `postgres` database), where tests' own FerretDBs get databases of their own. */
  postgresUrl: string;
  redisUrl: string;
  /** The certificate webhook receivers present (the stack's processes trust it: production delivers to https only). */
  webhookTls: { certFile: string; keyFile: string };
}

/** What the e2e tier's globalSetup started on top: the whole system's URLs and the shared secrets. */
export interface TestStack extends TestInfra {
  restUrl: string;
  gatewayUrl: string;
  jwtSecret: string;
  /** SUBGRAPH_SECRET, generated per run: the stack runs in production mode, which requires it. */
  subgraphSecret: string;
  urls: Record<string, string>;
  /** Each process's Prometheus endpoint (its METRICS_PORT). */
  metricsUrls: Record<string, string>;
  /** The shared facade's GATEWAY_MODE: `embedded` (the default) or `remote` (TEST_GATEWAY_MODE=remote). */
  gatewayMode: 'embedded' | 'remote';
}

export function testStack(): TestStack {
  const raw = process.env['TEST_STACK'];
  if (!raw)
    throw new Error('TEST_STACK is not set: the whole stack runs for *.e2e.ts files only (jest.config.js, e2e tier)');
  return JSON.parse(raw) as TestStack;
}

export function testInfra(): TestInfra {
  const raw = process.env['TEST_INFRA'];
  if (!raw) throw new Error('TEST_INFRA is not set: run this test through jest (its tier\'s globalSetup starts it)');
  return JSON.parse(raw) as TestInfra;
}

/** What the stack's gateway presents to its subgraphs (what a test calling a subgraph directly must present too). */
export const stackSubgraphSecret = (stack: TestStack): string => stack.subgraphSecret;
