/** Rate limiting shared by the facade and the gateway: Redis-backed limiters with insurance, headers, exemptions. */
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
