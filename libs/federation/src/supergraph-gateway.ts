/**
 * The federation gateway over the supergraph composed at build time (so it boots while a subgraph is down): forwards
 * the caller's credentials and request id to each subgraph, reaches them with the platform's one GraphQL client
 * (@platform/service: undici keep-alive pools, a deadline) and turns an unreachable subgraph into SERVICE_UNAVAILABLE
 * for the fields that need it. The gateway process serves it over HTTP; the REST facade can run the same executor
 * in-process (GATEWAY_MODE=embedded).
 */
import { ApolloGateway, type GraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLError } from 'graphql';
import { CLIENT_IP_HEADER, FACADE_CALL_HEADER, subgraphSecretHeaders, type Secrets } from '@platform/auth';
import { COMMIT_TIMEOUT_HEADER, DEADLINE_HEADER, DEFAULT_COMMIT_TIMEOUT_MS, Deadline } from '@platform/contracts';
import { outcomeUnknown } from '@platform/errors';
import { REQUEST_ID_HEADER, type Logger } from '@platform/logging';
import { isTimeout } from '@platform/metrics';
import { GraphQLHttpClient, UpstreamUnavailableError, type GraphQLHttpAnswer } from '@platform/service';
import { takeReadDependencies, type GenerationSnapshot, type SubgraphReadCache } from '@platform/read-cache';
import type { ResolvedCaller } from './credential-checks';
import { InFlightReads } from './inflight-reads';
import { countingQueryPlanCache } from './query-plan-cache';
import type { WarmUpContext } from './warm-up';

/** What a supergraph operation carries to the subgraphs (or, `warmUp`, that it is a dry run that reaches none). */
export interface FederationContext extends WarmUpContext {
  requestId: string;
  /** The caller established for this request (credential-checks.ts): what is forwarded, and its rights key. */
  caller: ResolvedCaller;
  /** The request's generations (read once); undefined without Redis. */
  snapshot?: GenerationSnapshot | undefined;
  /** The end client's IP (the login throttle at the auth subgraph counts per IP); absent: not known. */
  clientIp?: string | undefined;
  /** The REST facade's fixed operations (proven by x-facade-proof, or embedded): REST's `limit` may reach 1000. */
  facade?: boolean | undefined;
  /**
   * The operation's write deadline, set when it starts (ADR 0020): each subgraph fetch hands what is left of it down;
   * absent: each fetch starts its own (SUBGRAPH_TIMEOUT_MS).
   */
  deadline?: Deadline | undefined;
  /** This request's logger (its request id bound), where a server fault is logged with its cause. */
  logger?: Logger | undefined;
}

export interface SupergraphGatewayOptions {
  supergraphSdl: string;
  /** Subgraph name -> URL; overrides the URLs recorded in the supergraph. */
  subgraphUrls: Record<string, string>;
  subgraphTimeoutMs: number;
  /**
   * WRITE_COMMIT_TIMEOUT_MS: how long a write step a subgraph sent before its deadline may take to commit or abort
   * (ADR 0020). A mutation's fetch waits for the deadline plus this plus MUTATION_SLACK_MS.
   */
  commitTimeoutMs?: number | undefined;
  /**
   * How long a mutation's fetch may wait at most, instead of the above: the embedded facade answers its client itself
   * at the deadline plus the commit bound and keeps waiting for the real outcome (its Idempotency-Key stores it).
   */
  mutationWaitMs?: number | undefined;
  /** SUBGRAPH_SECRET (its ring's current value), presented on every subgraph call. */
  subgraphSecret: Secrets;
  logger: Logger;
  /** SUBGRAPH_DEDUP: identical reads in flight share one fetch (InFlightReads below); default on. */
  dedupReads?: boolean | undefined;
  /** Query answers kept per subgraph, body and caller's rights (docs/decisions/0017-read-cache.md); absent: none. */
  readCache?: SubgraphReadCache | undefined;
}

export interface SupergraphGateway {
  gateway: ApolloGateway;
  /** Closes the subgraph connection pools (after the ApolloServer using the gateway stopped). */
  close(): Promise<void>;
}

type GatewayResponse = Awaited<ReturnType<GraphQLDataSource['process']>>;

/** The fetch's operation is a query (`query ...` or the `{ ... }` shorthand), never a mutation or subscription. */
const isQuery = (document: string): boolean => {
  const start = document.trimStart();
  return start.startsWith('query') || start.startsWith('{');
};

/** Headers that differ per request and grant nothing: the request id and the deadline (ADR 0020). */
const PER_REQUEST_HEADERS = new Set([REQUEST_ID_HEADER, DEADLINE_HEADER, COMMIT_TIMEOUT_HEADER]);

/** The dedup key: the body and every header but the per-request ones. */
function readKey(body: string, headers: Record<string, string>): string {
  let key = body;
  for (const name of Object.keys(headers).sort()) {
    if (!PER_REQUEST_HEADERS.has(name)) key += `\n${name}:${headers[name]}`;
  }
  return key;
}

/** A subgraph's answer that only refuses the input: errors, each BAD_USER_INPUT, and no data. */
function isInputRefusal(payload: unknown): payload is GatewayResponse {
  if (typeof payload !== 'object' || payload === null) return false;
  const { errors, data } = payload as { errors?: unknown; data?: unknown };
  return (
    data === undefined &&
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every(
      (error: { extensions?: { code?: unknown } } | null) => error?.extensions?.code === 'BAD_USER_INPUT',
    )
  );
}

/**
 * One subgraph, as the query planner calls it: the fetch as a JSON POST with the caller's `Authorization` and request
 * id, through the platform's one GraphQL client. What @apollo/gateway's RemoteGraphQLDataSource does, without its
 * node-fetch Headers and Request objects and without APQ or cache-control (neither is used here). A non-2xx answer
 * becomes the same GraphQLError it would give (`<status>: <text>`, UNAUTHENTICATED / FORBIDDEN for 401 / 403), but a
 * 400 refusing the input, which is answered as the subgraph's errors; no
 * answer, a proxy's 502/503/504 or a body that is not a JSON object means the subgraph is unavailable:
 * SERVICE_UNAVAILABLE, not a wrong query.
 */
class SubgraphDataSource implements GraphQLDataSource<FederationContext> {
  constructor(
    private readonly client: GraphQLHttpClient,
    /** The deadline of a fetch whose operation set none, and how long a mutation's fetch waits beyond it. */
    private readonly timing: { deadlineMs: number; commitMs: number; mutationWaitMs: number | undefined },
    private readonly onUnavailable: (url: string, error: Error) => void,
    /** Identical reads in flight share one fetch (SUBGRAPH_DEDUP); undefined: every read is sent. */
    private readonly inFlight: InFlightReads<GraphQLHttpAnswer> | undefined,
    /** The read cache, and this subgraph's name in it; undefined: every read is fetched. */
    private readonly readCache: { cache: SubgraphReadCache; subgraph: string } | undefined,
  ) {}

  async process({
    request,
    context,
  }: GraphQLDataSourceProcessOptions<FederationContext>): Promise<GatewayResponse> {
    if (!request.query) throw new Error('Missing query');
    const headers: Record<string, string> = {};
    let deadline: Deadline | undefined;
    let caller: ResolvedCaller | undefined;
    let snapshot: GenerationSnapshot | undefined;
    if ('requestId' in context) {
      const ctx = context as FederationContext;
      // A dry run (plans warmed at start) plans the fetches but sends none.
      if (ctx.warmUp) return {};
      caller = ctx.caller;
      snapshot = ctx.snapshot;
      if (caller.authorization) headers['authorization'] = caller.authorization;
      headers[REQUEST_ID_HEADER] = ctx.requestId;
      if (ctx.clientIp) headers[CLIENT_IP_HEADER] = ctx.clientIp;
      if (ctx.facade) headers[FACADE_CALL_HEADER] = '1';
      deadline = ctx.deadline;
    }
    // The subgraph starts no write step after the deadline and bounds each by the commit timeout (ADR 0020); a read
    // may write too (an API key's recorded use), so every fetch carries them, as they stand when it is sent (a read
    // that waited for the next fetch sends it later than it arrived).
    deadline ??= Deadline.in(this.timing.deadlineMs, this.timing.commitMs);
    const due = deadline;
    const sendable = (): Record<string, string> => ({ ...headers, ...due.headers() });
    const body = JSON.stringify({
      query: request.query,
      variables: request.variables,
      operationName: request.operationName,
      ...(request.extensions ? { extensions: request.extensions } : {}),
    });
    const query = isQuery(request.query);
    // A mutation never reaches the cache: it is neither looked up nor kept (the subgraph bumps its generations).
    const cached =
      query && this.readCache && caller && snapshot
        ? await this.readCache.cache.lookup({
            subgraph: this.readCache.subgraph,
            body,
            viewer: caller.viewer,
            facade: headers[FACADE_CALL_HEADER] === '1',
            snapshot,
          })
        : undefined;
    // Parsed per request: the executor merges later fetches into the objects it is given.
    if (cached?.body !== undefined) return JSON.parse(cached.body) as GatewayResponse;
    // The request that reaches the subgraph keeps its answer (2xx, no errors) once, however many reads share it, under
    // what the subgraph says it read (taken out of the answer: the client never sees it).
    const fetch = async (): Promise<GraphQLHttpAnswer> => {
      const sent = await this.client.post(body, sendable());
      const dependencies = takeReadDependencies(sent.payload);
      if (cached && sent.status >= 200 && sent.status < 300 && !Array.isArray((sent.payload as { errors?: unknown }).errors))
        cached.keep(JSON.stringify(sent.payload), dependencies);
      return sent;
    };
    let answer: GraphQLHttpAnswer;
    try {
      answer =
        this.inFlight && query
          ? await (cached
              ? // Reads of the same generation may share the fetch in flight: one that started before a write
                // returned has another generation.
                this.inFlight.run(`${readKey(body, headers)}\ngeneration:${cached.generation}`, fetch, 'shared')
              : // Without a generation (the cache off, Redis unknown) a read arriving after a write returned could join
                // a fetch sent before it: it may only join one sent after it arrived (ADR 0017).
                this.inFlight.run(readKey(body, headers), fetch, 'ordered'))
          : query
            ? await fetch()
            : await this.mutate(body, sendable(), deadline);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      // A mutation that may have reached the subgraph may be committing there: never a 503 inviting a retry.
      if (!query && !(error instanceof UpstreamUnavailableError && !error.mayHaveReached))
        throw this.outcomeUnknown(failure);
      throw this.unavailable(failure);
    } finally {
      // What this request reads after its own write must be read after that write's bumps: the snapshot reads again.
      if (!query) snapshot?.invalidate();
    }
    // A subgraph's refusal of the request's input (a scalar the gateway cannot check: DateTime) is the client's error,
    // reported as the subgraph gave it.
    if (answer.status === 400 && isInputRefusal(answer.payload)) return answer.payload;
    if (answer.status < 200 || answer.status >= 300) {
      const code =
        answer.status === 401 ? 'UNAUTHENTICATED' : answer.status === 403 ? 'FORBIDDEN' : undefined;
      throw new GraphQLError(`${answer.status}: ${answer.statusText}`, {
        extensions: {
          response: {
            url: this.client.url,
            status: answer.status,
            statusText: answer.statusText,
            body: answer.payload,
          },
          ...(code ? { code } : {}),
        },
      });
    }
    return answer.payload as GatewayResponse;
  }

  /**
   * A mutation waits for the subgraph's answer past the deadline by its commit bound (plus slack for the last read that
   * settles an uncertain write): a healthy subgraph then has answered with the real outcome.
   */
  private mutate(body: string, headers: Record<string, string>, deadline: Deadline): Promise<GraphQLHttpAnswer> {
    return this.client.post(body, headers, Math.max(1, this.timing.mutationWaitMs ?? deadline.mutationWaitMs()));
  }

  private unavailable(error: Error): GraphQLError {
    this.onUnavailable(this.client.url, error);
    return new GraphQLError('Service temporarily unavailable', {
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    });
  }

  private outcomeUnknown(error: Error): GraphQLError {
    this.onUnavailable(this.client.url, error);
    return new GraphQLError(outcomeUnknown().message, { extensions: { code: 'OUTCOME_UNKNOWN' } });
  }
}


export function createSupergraphGateway(options: SupergraphGatewayOptions): SupergraphGateway {
  const clients: GraphQLHttpClient[] = [];
  const onUnavailable = (url: string, error: Error) => {
    const timedOut = isTimeout(error);
    options.logger.warn(
      { subgraph: url, reason: timedOut ? 'timeout' : error.message },
      'subgraph unavailable',
    );
  };
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    // The gateway's own default store (30 MiB LRU), counted: graphql_query_plan_cache_requests_total.
    queryPlannerConfig: { cache: countingQueryPlanCache() },
    buildService: ({ name, url }) => {
      const target = options.subgraphUrls[name] ?? url;
      if (!target) throw new Error(`no URL configured for subgraph ${name}`);
      const client = new GraphQLHttpClient(target, {
        upstream: name,
        timeoutMs: options.subgraphTimeoutMs,
        headers: subgraphSecretHeaders(options.subgraphSecret),
      });
      clients.push(client);
      // With the read cache's generation reads share the fetch in flight, without it only the next fetch (above).
      const inFlight = options.dedupReads === false ? undefined : new InFlightReads<GraphQLHttpAnswer>(name);
      const readCache = options.readCache && { cache: options.readCache, subgraph: name };
      const timing = {
        deadlineMs: options.subgraphTimeoutMs,
        commitMs: options.commitTimeoutMs ?? DEFAULT_COMMIT_TIMEOUT_MS,
        mutationWaitMs: options.mutationWaitMs,
      };
      return new SubgraphDataSource(client, timing, onUnavailable, inFlight, readCache);
    },
    logger: {
      debug: () => undefined,
      info: (message: unknown) => options.logger.info(String(message)),
      warn: (message: unknown) => options.logger.warn(String(message)),
      error: (message: unknown) => options.logger.error(String(message)),
    },
  });
  return {
    gateway,
    close: async () => {
      await Promise.all(clients.map((client) => client.close()));
      await options.readCache?.close();
    },
  };
}
