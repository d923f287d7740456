/**
 * `npm run bench:limits`: what the GraphQL limits (ADR 0011) add to one gateway request, measured in-process on the
 * real supergraph and the real @apollo/gateway executor: two ApolloServers over the same supergraph, one with the
 * limits' validation rules and plugins and one without, run the same operations as dry runs (planned and executed by
 * the gateway, no subgraph called, as the start-up warm-up does) in interleaved rounds; CPU time per operation from
 * process.cpuUsage(). The bearer-token account check is measured the same way against a stub users subgraph.
 * The whole-stack scenarios (`npm run bench`) carry the network, the subgraph and MongoDB; this isolates the new code.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { signAccessToken, verifyAccessToken } from '@platform/auth';
import { createLogger } from '@platform/logging';
import {
  AccessTokenStatus,
  ANONYMOUS,
  createSupergraphGateway,
  warmUpPlugin,
  type FederationContext,
} from '@platform/federation';
import { DEFAULT_GRAPHQL_LIMITS, graphqlLimits } from '@platform/graphql-server';
import { OPERATIONS } from '../apps/rest/src/gateway/gateway-client';

const { GetUser, ListItems } = OPERATIONS;

const ROUNDS = 7;
const OPS_PER_ROUND = 3_000;

async function server(withLimits: boolean, supergraphSdl: string): Promise<ApolloServer<FederationContext>> {
  const { gateway } = createSupergraphGateway({
    supergraphSdl,
    subgraphUrls: {},
    subgraphTimeoutMs: 5_000,
    subgraphSecret: 'bench-subgraph-secret-0123456789-abcdef',
    logger: createLogger('bench', 'silent'),
  });
  const limits = graphqlLimits<FederationContext>(DEFAULT_GRAPHQL_LIMITS, { production: true });
  const apollo = new ApolloServer<FederationContext>({
    gateway,
    parseOptions: { maxTokens: 10_000 },
    ...(withLimits ? { validationRules: limits.validationRules } : {}),
    plugins: [ApolloServerPluginCacheControlDisabled(), warmUpPlugin(), ...(withLimits ? limits.plugins : [])],
  });
  await apollo.start();
  return apollo;
}

const context = (): FederationContext => ({ requestId: 'bench', caller: ANONYMOUS, warmUp: true });

async function cpuPerOp(run: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < OPS_PER_ROUND; i += 1) await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / OPS_PER_ROUND;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const root = resolve(__dirname, '..', '..');
  const supergraphSdl = readFileSync(join(root, 'dist', 'apps', 'gateway', 'supergraph.graphql'), 'utf8');
  const servers = { with: await server(true, supergraphSdl), without: await server(false, supergraphSdl) };
  const operations: Record<string, { query: string; operationName: string; variables: Record<string, unknown> }> = {
    'GetUser (no list sizes)': { query: GetUser.document, operationName: GetUser.name, variables: { id: '1' } },
    'ListItems (variable first: costed per request)': {
      query: ListItems.document,
      operationName: ListItems.name,
      variables: { first: 20, withTotal: false },
    },
  };
  const results: Record<string, { with: number[]; without: number[] }> = {};
  for (const [name, request] of Object.entries(operations)) {
    results[name] = { with: [], without: [] };
    for (const variant of ['with', 'without'] as const) {
      const answer = await servers[variant].executeOperation(request, { contextValue: context() });
      if (answer.body.kind !== 'single' || answer.body.singleResult.errors?.some((e) => e.extensions?.['code'] !== undefined && e.extensions['code'] !== 'INTERNAL_SERVER_ERROR'))
        throw new Error(`${name} (${variant}) did not plan: ${JSON.stringify(answer.body)}`);
      await cpuPerOp(() => servers[variant].executeOperation(request, { contextValue: context() }));
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const variant of round % 2 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
        results[name]![variant].push(await cpuPerOp(() => servers[variant].executeOperation(request, { contextValue: context() })));
      }
    }
  }

  // The bearer-token account check of a verified token, its users subgraph an in-process stub (the kept answers are
  // under generations in Redis since ADR 0019: the whole-stack bench measures those).
  const secret = 'bench-jwt-secret-0123456789-abcdefghijklmnop';
  const tokenStatus = new AccessTokenStatus({
    users: {
      request: async <T>() => ({ _accountStatus: { role: 'member', isActive: true, tokensValidAfter: null } }) as T,
    },
  });
  const claims = verifyAccessToken(
    signAccessToken({ sub: 'bench', uid: 1, role: 'member', scopes: ['users:read'], kind: 'user' }, secret, 600),
    secret,
  );
  await tokenStatus.check(claims, 'bench', undefined);
  const checks: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) checks.push(await cpuPerOp(() => tokenStatus.check(claims, 'bench', undefined)));

  const lines = [`GraphQL limits, CPU per gateway operation (median of ${ROUNDS} interleaved rounds of ${OPS_PER_ROUND}):`];
  for (const [name, { with: on, without: off }] of Object.entries(results)) {
    lines.push(`  ${name}: with ${median(on).toFixed(1)} us, without ${median(off).toFixed(1)} us, limits add ${(median(on) - median(off)).toFixed(1)} us`);
  }
  lines.push(`  bearer-token account check (stub users subgraph): ${median(checks).toFixed(2)} us`);
  process.stdout.write(`${lines.join('\n')}\n`);
  await Promise.all([servers.with.stop(), servers.without.stop()]);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
