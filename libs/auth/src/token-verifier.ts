/**
 * Verifies access tokens once per token text: HS256 checks cost about 90 µs here, and a busy client presents the
 * same token on every request. Only successful verifications are kept, each until its own `exp`; the cache is
 * bounded (oldest first out). A JWT cannot be revoked before `exp` anyway, so caching changes no answer.
 */
import type { AppError } from '@platform/errors';
import { verifyAccessToken, type AccessTokenClaims } from './jwt';

export class AccessTokenVerifier {
  private readonly verified = new Map<string, AccessTokenClaims & { exp: number }>();

  constructor(
    private readonly secret: string,
    private readonly maxEntries = 10_000,
  ) {}

  /** The token's claims, or throws the AppError `Invalid token`. */
  verify(token: string, nowMs = Date.now()): AccessTokenClaims {
    const hit = this.verified.get(token);
    if (hit) {
      if (hit.exp * 1000 > nowMs) return hit;
      this.verified.delete(token);
    }
    const claims = verifyAccessToken(token, this.secret, nowMs) as AccessTokenClaims & { exp: number };
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
