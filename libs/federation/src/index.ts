/** The supergraph executor shared by the gateway process and the REST facade's embedded mode. */
export { CLIENT_IP_HEADER } from '@platform/auth';
export {
  createSupergraphGateway,
  type FederationContext,
  type SupergraphGateway,
  type SupergraphGatewayOptions,
} from './supergraph-gateway';
export {
  ApiKeyExchange,
  API_KEYS,
  invalidApiKeyError,
  unauthenticatedError,
  type ApiKeyExchangeOptions,
  type AuthSubgraphClient,
  type ExchangedKey,
} from './api-key-exchange';
export {
  placeholderValue,
  placeholderVariables,
  warmUpPlugin,
  NOT_PLANNED_CODES,
  WARM_UP_HEADER,
  type WarmUpContext,
} from './warm-up';
export {
  AccessTokenStatus,
  invalidTokenError,
  type AccessTokenStatusOptions,
} from './access-token-status';
export {
  ANONYMOUS,
  Callers,
  createCredentialChecks,
  type CallersOptions,
  type CredentialChecks,
  type PresentedCaller,
  type ResolvedCaller,
} from './credential-checks';
export { createGenerationReader, createReadCache } from './read-cache';
