/** What the facade and the gateway keep in Redis: rate limiters with insurance, headers, exemptions; idempotent POST outcomes. */
export {
  createLimiterBackend,
  type Limiter,
  type LimiterBackend,
  type LimiterBackendOptions,
  type LimiterSpec,
  type LimitOutcome,
  type RateLimitFailMode,
} from './limiter-backend';
export { rateLimitHeaders, retryAfterSeconds } from './rate-limit-headers';
export { FACADE_PROOF_HEADER, facadeProofHeaders, facadeProofChecker } from './facade-proof';
export { createIdentityResolver, type IdentityResolver, type CallerCredentials } from './rate-limit-identity';
export {
  createIdempotencyStore,
  IdempotencyUnavailableError,
  type ClaimOutcome,
  type IdempotencyStore,
  type IdempotencyStoreOptions,
  type StoredResponse,
} from './idempotency-store';
