/**
 * Every Prometheus series a process exposes, declared once (names, units, label sets) in the process-wide registry the
 * metrics listener serves. Conventions: base units (seconds, bytes), `_total` counters, bounded labels only: route
 * templates never raw paths, GraphQL operation names through a LabelBudget, status classes not codes.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();

/** Request latencies: 1 ms .. 10 s (the SUBGRAPH_TIMEOUT_MS and GATEWAY_TIMEOUT_MS defaults fall inside). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Database commands and pool waits are finer: 0.25 ms .. 5 s. */
const DB_BUCKETS = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

const registers = [registry];

export const httpRequests = new Counter({
  name: 'http_server_requests_total',
  help: 'HTTP requests served, by method, route template (GraphQL: operation name) and status class.',
  labelNames: ['method', 'route', 'status_class'] as const,
  registers,
});
export const httpDuration = new Histogram({
  name: 'http_server_request_duration_seconds',
  help: 'Time from the request arriving to the response finishing, by method, route template and status class.',
  labelNames: ['method', 'route', 'status_class'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});
export const httpInFlight = new Gauge({
  name: 'http_server_requests_in_flight',
  help: 'HTTP requests being served now, by method.',
  labelNames: ['method'] as const,
  registers,
});

export const graphqlOperations = new Counter({
  name: 'graphql_operations_total',
  help: 'GraphQL operations, by operation name ("anonymous" without one), type and outcome (success, partial, error).',
  labelNames: ['operation', 'type', 'outcome'] as const,
  registers,
});
export const graphqlDuration = new Histogram({
  name: 'graphql_operation_duration_seconds',
  help: 'GraphQL operation time from request to response, by operation name and type.',
  labelNames: ['operation', 'type'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});
export const graphqlErrors = new Counter({
  name: 'graphql_errors_total',
  help: 'Errors in GraphQL responses, by extensions.code.',
  labelNames: ['code'] as const,
  registers,
});
export const graphqlLimitsRefused = new Counter({
  name: 'graphql_limits_refused_total',
  help: 'Operations refused by an operation limit (depth, aliases, directives, cost).',
  labelNames: ['limit'] as const,
  registers,
});
export const queryPlanCache = new Counter({
  name: 'graphql_query_plan_cache_requests_total',
  help: "Look-ups in the gateway's query-plan cache, by result (hit, miss).",
  labelNames: ['result'] as const,
  registers,
});

export const upstreamRequests = new Counter({
  name: 'upstream_requests_total',
  help: 'Calls to an upstream (gateway -> subgraph, facade -> gateway), by upstream and outcome (ok, error, timeout, unavailable).',
  labelNames: ['upstream', 'outcome'] as const,
  registers,
});
export const upstreamDuration = new Histogram({
  name: 'upstream_request_duration_seconds',
  help: 'Duration of calls to an upstream, by upstream and outcome.',
  labelNames: ['upstream', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});

export const inFlightReads = new Counter({
  name: 'subgraph_inflight_reads_total',
  help: 'Subgraph reads by the gateway executor, by subgraph and result (sent, merged into an identical read in flight).',
  labelNames: ['upstream', 'result'] as const,
  registers,
});

export const mongoCommandDuration = new Histogram({
  name: 'mongodb_command_duration_seconds',
  help: "MongoDB command durations from the driver's command monitoring, by command, collection and outcome.",
  labelNames: ['command', 'collection', 'outcome'] as const,
  buckets: DB_BUCKETS,
  registers,
});
export const mongoPoolConnections = new Gauge({
  name: 'mongodb_pool_connections',
  help: "Connections in the driver's pool, by state (open, in_use).",
  labelNames: ['state'] as const,
  registers,
});
export const mongoPoolWait = new Histogram({
  name: 'mongodb_pool_wait_seconds',
  help: 'Time spent waiting to check a connection out of the pool.',
  buckets: DB_BUCKETS,
  registers,
});
export const mongoPoolCheckoutFailures = new Counter({
  name: 'mongodb_pool_checkout_failures_total',
  help: 'Connection check-outs that failed, by reason (timeout, poolClosed, connectionError).',
  labelNames: ['reason'] as const,
  registers,
});

export const rateLimitDecisions = new Counter({
  name: 'rate_limit_decisions_total',
  help: 'Rate-limit decisions, by limiter (key prefix) and decision (allowed, limited, unavailable).',
  labelNames: ['limiter', 'decision'] as const,
  registers,
});
export const rateLimitStoreErrors = new Counter({
  name: 'rate_limit_store_errors_total',
  help: 'Errors reported by the Redis connection of the rate limiter.',
  registers,
});
export const rateLimitStoreFallbacks = new Counter({
  name: 'rate_limit_store_fallbacks_total',
  help: 'Decisions taken by the in-process insurance limiter because Redis did not answer, by limiter.',
  labelNames: ['limiter'] as const,
  registers,
});
export const rateLimitStoreUp = new Gauge({
  name: 'rate_limit_store_up',
  help: '1 while the Redis connection of the rate limiter is ready, 0 while it is not (absent without REDIS_URL).',
  registers,
});
export const idempotencyRequests = new Counter({
  name: 'idempotency_requests_total',
  help: 'POSTs with an Idempotency-Key, by outcome (first: claimed and run; replayed; in_progress: 409; key_reused: 422; not_stored: a credential-issuing route; unavailable: Redis did not answer and the POST ran without the guarantee; refused: the same under IDEMPOTENCY_FAIL_MODE=closed, 503).',
  labelNames: ['outcome'] as const,
  registers,
});
export const loginThrottleBlocks = new Counter({
  name: 'auth_login_throttle_blocks_total',
  help: 'Login attempts refused by the login throttle (client IP + username over budget).',
  registers,
});

export const readCacheLookups = new Counter({
  name: 'read_cache_lookups_total',
  help: 'Subgraph reads looked up in the read cache, by subgraph and result (hit; miss; stale_miss: an entry of an older generation; bypass: not cacheable or Redis unknown).',
  labelNames: ['subgraph', 'result'] as const,
  registers,
});
export const readCacheInvalidations = new Counter({
  name: 'read_cache_invalidations_total',
  help: 'Generation bumps by a subgraph after it wrote, by subgraph and outcome (ok, failed: Redis did not take it; retried until it does).',
  labelNames: ['subgraph', 'outcome'] as const,
  registers,
});
export const readCacheResets = new Counter({
  name: 'read_cache_resets_total',
  help: 'Times a reader dropped every cached entry because its Redis connection failed or closed.',
  registers,
});

export const eventsRecorded = new Counter({
  name: 'events_recorded_total',
  help: 'Events the events service stored for the first time (a re-published event is not counted again), by type.',
  labelNames: ['type'] as const,
  registers,
});
export const eventPublishFailures = new Counter({
  name: 'events_publish_failures_total',
  help: "A subgraph's pushes of events to the events service that failed (the sweep publishes them later).",
  registers,
});
export const eventOutboxDropped = new Counter({
  name: 'events_outbox_dropped_total',
  help: 'Outbox entries the sweep dropped because their write never happened.',
  registers,
});
export const webhookDeliveries = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Delivery attempts by outcome (delivered, failed: a retry follows, exhausted: the schedule ran out, withheld, refused: egress refused the address, interrupted, unreadable_secret: no WEBHOOK_SECRETS_KEY opens the signing secret).',
  labelNames: ['outcome'] as const,
  registers,
});
export const webhookDeliveryDuration = new Histogram({
  name: 'webhook_delivery_duration_seconds',
  help: "Time of one delivery attempt, from connecting to the endpoint's answer.",
  buckets: LATENCY_BUCKETS,
  registers,
});
export const webhookDeliveryLag = new Histogram({
  name: 'webhook_delivery_lag_seconds',
  help: 'From an event occurring to its first successful delivery to an endpoint.',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86400],
  registers,
});
export const webhookQueueDepth = new Gauge({
  name: 'webhook_queue_jobs',
  help: 'Jobs in the delivery queue, by state (waiting, delayed, active).',
  labelNames: ['state'] as const,
  registers,
});
export const webhookDuePending = new Gauge({
  name: 'webhook_deliveries_due',
  help: 'Deliveries due now in the database (what the queue should hold; the sweep re-queues them).',
  registers,
});
export const webhookFanOut = new Counter({
  name: 'webhook_fan_out_deliveries_total',
  help: "Deliveries the fan-out made, by decision (scheduled; over_budget: withheld, its owner's delivery budget spent).",
  labelNames: ['decision'] as const,
  registers,
});
export const webhooksDisabled = new Counter({
  name: 'webhooks_disabled_total',
  help: 'Endpoints disabled after a delivery failed over the whole retry schedule.',
  registers,
});
export const credentialChecks = new Counter({
  name: 'credential_checks_total',
  help: "Checks of a request's credential, by check (token: a JWT's signature and claims; account_status: the account behind a user's token; api_key: a key's verdict; webhook_owner: the delivery worker's check of a webhook owner's account at each try) and result (hit: answered from memory, still current; miss: asked; refused: invalid). One of each per request and process: a second is a second verification.",
  labelNames: ['check', 'result'] as const,
  registers,
});

let recording = true;

/** False once a process runs with METRICS_PORT=off: the per-request recording sites skip their work. */
export const metricsRecording = (): boolean => recording;

/** METRICS_PORT=off: nothing is served, so nothing is recorded on the request path either. */
export function stopRecording(): void {
  recording = false;
}

let defaultMetrics = false;

/** Node's own metrics (event-loop lag, heap, GC, CPU, handles), once per process. */
export function collectProcessMetrics(): void {
  if (defaultMetrics) return;
  defaultMetrics = true;
  collectDefaultMetrics({ register: registry });
  // prom-client also names three gauges `*_total`, a suffix Prometheus reserves for counters (promtool check metrics
  // reports them); the same counts stay available by type as `nodejs_active_resources`, `nodejs_active_handles`, ...
  for (const name of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ]) {
    registry.removeSingleMetric(name);
  }
}
