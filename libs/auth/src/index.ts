/** Security in one place: JWT (HS256 pinned), roles and scopes, password hashing, secret-token digests. */
export {
  ALL_SCOPES,
  READ_SCOPES,
  ROLES,
  type Role,
  type Scope,
  isScope,
  scopesForRole,
  parseScopeList,
} from './scopes';
export {
  type Caller,
  type Principal,
  type RequestCaller,
  requirePrincipal,
  requireScope,
  isAdmin,
  canWriteAsOwner,
  requireOwnerOrAdmin,
  requireServicePrincipal,
} from './principal';
export {
  signAccessToken,
  verifyAccessToken,
  signInternalToken,
  bearerTokenFrom,
  type AccessTokenClaims,
} from './jwt';
export { AccessTokenVerifier } from './token-verifier';
export { hashPassword, verifyPassword, verifyAgainstDummy } from './passwords';
export { generateSecretToken, digestSecret, digestsEqual } from './secret-tokens';
export {
  API_KEY_MAX_LENGTH,
  isWellFormedApiKey,
  isWellFormedAccessToken,
  malformedCredentialError,
} from './credential-format';
export {
  CLIENT_IP_HEADER,
  FACADE_CALL_HEADER,
  SUBGRAPH_SECRET_HEADER,
  requireSubgraphSecret,
  subgraphSecretHeaders,
} from './subgraph-secret';
export { acceptsValue, keyIdOf, keyRing, mapRing, ringOf, type KeyRing, type Secrets } from './key-ring';
