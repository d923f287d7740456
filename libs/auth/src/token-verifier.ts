/**
 * Verifies access tokens once per token text: HS256 checks cost about 90 µs here, and a busy client presents the
 * same token on every request. Only successful verifications are kept, each until its own `exp`; the cache is
 * bounded (oldest first out). The signature and claims cannot change before `exp`, so caching changes no answer
 * (whether the account still allows the token is another check: libs/federation access-token-status.ts).
 * Every call is counted (`credential_checks_total{check="token"}`): a process verifies a request's token once.
 */
import type { AppError } from '@platform/errors';
import { credentialChecks, metricsRecording } from '@platform/metrics';
import { verifyAccessToken, type AccessTokenClaims } from './jwt';
import type { Secrets } from './key-ring';

export class AccessTokenVerifier {
  private readonly verified = new Map<string, AccessTokenClaims & { exp: number }>();

  constructor(
    private readonly secret: Secrets,
    private readonly maxEntries = 10_000,
  ) {}

  /** The token's claims, or throws the AppError `Invalid token`. */
  verify(token: string, nowMs = Date.now()): AccessTokenClaims {
    const hit = this.verified.get(token);
    if (hit) {
      if (hit.exp * 1000 > nowMs) {
        if (metricsRecording()) credentialChecks.inc({ check: 'token', result: 'hit' });
        return hit;
      }
      this.verified.delete(token);
    }
    let claims: AccessTokenClaims & { exp: number };
    try {
      claims = verifyAccessToken(token, this.secret, nowMs) as AccessTokenClaims & { exp: number };
    } catch (error) {
      if (metricsRecording()) credentialChecks.inc({ check: 'token', result: 'refused' });
      throw error;
    }
    if (metricsRecording()) credentialChecks.inc({ check: 'token', result: 'miss' });
    if (this.verified.size >= this.maxEntries) {
      const oldest = this.verified.keys().next();
      if (!oldest.done) this.verified.delete(oldest.value);
    }
    this.verified.set(token, claims);
    return claims;
  }

  /** The claims, or undefined for an invalid token (callers that fall back instead of failing). */
  tryVerify(token: string, nowMs = Date.now()): AccessTokenClaims | undefined {
    try {
      return this.verify(token, nowMs);
    } catch (error) {
      if ((error as AppError).code === 'UNAUTHENTICATED') return undefined;
      throw error;
    }
  }
}
