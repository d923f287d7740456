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
  invalidApiKeyError,
  type ApiKeyExchangeOptions,
  type AuthSubgraphClient,
} from './api-key-exchange';
export {
  placeholderValue,
  placeholderVariables,
  warmUpPlugin,
  NOT_PLANNED_CODES,
  WARM_UP_HEADER,
  type WarmUpContext,
} from './warm-up';
export { AccessTokenStatus, invalidTokenError, type AccessTokenStatusOptions } from './access-token-status';
export { createCredentialChecks, type CredentialChecks } from './credential-checks';
export { createReadCache } from './read-cache';
