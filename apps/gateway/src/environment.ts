/** The gateway's settings, parsed once at start. */
import { z } from 'zod';
import { booleanFlag, commonEnvironment, loadEnvironment, port, resolveJwtSecret } from '@platform/config';

const schema = commonEnvironment.extend({
  PORT: port(4000),
  USERS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4001/graphql'),
  ITEMS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4002/graphql'),
  AUTH_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4003/graphql'),
  POSTS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4004/graphql'),
  /** The supergraph composed at build time (tools/build.mjs); defaults to the file beside the bundle. */
  SUPERGRAPH_PATH: z.string().optional(),
  SUBGRAPH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  GRAPHQL_INTROSPECTION: booleanFlag(true),
});

export type GatewayEnvironment = z.infer<typeof schema> & { jwtSecret: string };

export function loadGatewayEnvironment(): GatewayEnvironment {
  const env = loadEnvironment(schema);
  // Apollo's gateway reports usage metrics to Apollo's servers unless this is set; nothing here may call out.
  process.env['APOLLO_TELEMETRY_DISABLED'] = 'true';
  return { ...env, jwtSecret: resolveJwtSecret(env) };
}
