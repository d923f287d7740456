/**
 * Login and the refresh-token lifecycle. Access tokens are HS256 JWTs (sub, uid, role, scopes, kind, pwv, iat, exp); refresh
 * tokens are opaque, stored as SHA-256 digests, single use: a refresh rotates the token within its family, and
 * presenting a rotated token again revokes the whole family (it was stolen or replayed). "Single use" holds under
 * concurrency on FerretDB v1 as on MongoDB (docs/decisions/0008-exactly-once-primitives.md).
 */
import { randomUUID } from 'node:crypto';
import {
  digestSecret,
  generateSecretToken,
  parseScopeList,
  scopesForRole,
  signAccessToken,
  verifyAgainstDummy,
  type Secrets,
  verifyPassword,
} from '@platform/auth';
import { AppError, validationError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import type { CredentialRepository } from '../data-access/credential-repository';
import type { RefreshTokenRepository } from '../data-access/refresh-token-repository';
import type { AccountDirectory, AccountStatus } from '../data-access/account-directory';
import type { LoginThrottle } from './login-throttle';
import type { TokenPair } from '../__generated__/resolvers-types';

export interface TokenSettings {
  jwtSecret: Secrets;
  accessTokenTtl: number;
  refreshTokenTtl: number;
}

/** The one answer to every failed login (unknown user, wrong password, inactive account): nothing to tell them apart. */
const loginFailed = () => new AppError('LOGIN_FAILED', 'Incorrect username or password');
const invalidRefreshToken = () => new AppError('UNAUTHENTICATED', 'Invalid refresh token');

const USERNAME_MAX = 50;
const PASSWORD_MAX = 128;

export class TokenService {
  constructor(
    private readonly credentials: CredentialRepository,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly accounts: AccountDirectory,
    private readonly settings: TokenSettings,
    private readonly logger: Logger,
    private readonly throttle: LoginThrottle,
  ) {}

  async login(
    input: { username: string; password: string; scope?: string | null },
    caller: { requestId: string; clientIp?: string | undefined },
  ): Promise<TokenPair> {
    const { requestId } = caller;
    // Before any other work: a refused attempt costs no password hash.
    await this.throttle.attempt(input.username, caller.clientIp);
    if (input.username === '') throw validationError([{ field: 'username', message: 'is required' }]);
    if (input.password === '') throw validationError([{ field: 'password', message: 'is required' }]);
    const requested = parseScopeList(input.scope ?? '');
    if (requested.unknown.length > 0) {
      throw validationError([{ field: 'scope', message: `unknown scope: ${requested.unknown.join(' ')}` }]);
    }
    const credential =
      input.username.length <= USERNAME_MAX ? await this.credentials.findByUsername(input.username) : null;
    if (!credential || input.password.length > PASSWORD_MAX) {
      // Same work as a real check, so an unknown username takes as long as a wrong password.
      await verifyAgainstDummy(input.password.slice(0, PASSWORD_MAX));
      this.logger.info({ requestId }, 'login failed');
      throw loginFailed();
    }
    if (!(await verifyPassword(input.password, credential.passwordHash))) {
      this.logger.info({ requestId, userId: credential._id }, 'login failed');
      throw loginFailed();
    }
    const account = await this.accounts.status(credential._id, requestId);
    if (!account || !account.isActive) {
      this.logger.info({ requestId, userId: credential._id }, 'login refused: account inactive or missing');
      throw loginFailed();
    }
    const granted: string[] = scopesForRole(account.role);
    let scopes = granted;
    if (requested.scopes.length > 0) {
      const beyond = requested.scopes.filter((s) => !granted.includes(s));
      if (beyond.length > 0) {
        throw validationError([{ field: 'scope', message: `not granted to this account: ${beyond.join(' ')}` }]);
      }
      scopes = requested.scopes;
    }
    const pair = await this.issue(account, scopes, randomUUID());
    this.logger.info({ requestId, userId: account.id }, 'login succeeded');
    return pair;
  }

  /**
   * Rotates a refresh token. Exactly one redemption of a token can win (the redemption record's primary key decides);
   * any other is reuse and revokes the family, and a revoked family's tokens are refused, including one that a
   * concurrent winner issues after the revocation.
   */
  async refresh(refreshToken: string, requestId: string): Promise<TokenPair> {
    const digest = digestSecret(refreshToken);
    const now = new Date();
    const current = await this.refreshTokens.findByDigest(digest);
    if (!current || current.revokedAt !== null || current.expiresAt <= now) throw invalidRefreshToken();
    if (await this.refreshTokens.isFamilyRevoked(current.familyId)) throw invalidRefreshToken();
    // usedAt without a redemption record: rotated before redemption records existed, so this is reuse as well.
    if (current.usedAt !== null || !(await this.refreshTokens.redeem(current, now))) {
      // A rotated token came back: whoever holds the family is not to be trusted any more.
      await this.refreshTokens.revokeFamily(current.familyId, current.userId, now);
      this.logger.warn({ requestId, userId: current.userId }, 'refresh token reuse detected; family revoked');
      throw invalidRefreshToken();
    }
    const account = await this.accounts.status(current.userId, requestId);
    if (!account || !account.isActive) {
      await this.refreshTokens.revokeFamily(current.familyId, current.userId, now);
      throw invalidRefreshToken();
    }
    // A role may have changed since login: keep only what the role still grants.
    const granted: string[] = scopesForRole(account.role);
    const scopes = current.scopes.filter((s) => granted.includes(s));
    return this.issue(account, scopes, current.familyId);
  }

  /** Revokes the session (the token's family). Unknown or already revoked tokens are fine: logging out twice succeeds. */
  async logout(refreshToken: string, requestId: string): Promise<void> {
    const known = await this.refreshTokens.findByDigest(digestSecret(refreshToken));
    if (!known) return;
    await this.refreshTokens.revokeFamily(known.familyId, known.userId, new Date());
    this.logger.info({ requestId, userId: known.userId }, 'logged out; refresh family revoked');
  }

  private async issue(account: AccountStatus, scopes: string[], familyId: string): Promise<TokenPair> {
    const { jwtSecret, accessTokenTtl, refreshTokenTtl } = this.settings;
    const accessToken = signAccessToken(
      { sub: account.username, uid: account.id, role: account.role, scopes, kind: 'user', pwv: account.passwordVersion },
      jwtSecret,
      accessTokenTtl,
    );
    const refreshToken = generateSecretToken('rt');
    const now = new Date();
    await this.refreshTokens.insert({
      _id: digestSecret(refreshToken),
      familyId,
      userId: account.id,
      scopes,
      createdAt: now,
      expiresAt: new Date(now.getTime() + refreshTokenTtl * 1000),
      usedAt: null,
      revokedAt: null,
    });
    return { accessToken, tokenType: 'bearer', expiresIn: accessTokenTtl, refreshToken, scopes };
  }
}
