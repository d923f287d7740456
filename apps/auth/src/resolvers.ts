/**
 * Resolvers of the auth subgraph, all in one map: login and the refresh-token lifecycle, password reset, internal
 * credential calls, and API keys (createApiKey, apiKeys, apiKey, updateApiKey, revokeApiKey, and the gateway's
 * internal _verifyApiKey). The API key fields are also exported as their own groups.
 */
import { apiKeys, parseEntityId } from '@platform/contracts';
import { typeResolvers, viewResolvers } from '@platform/graphql-server';
import { requireService } from './domain/credential-service';
import type { AuthContext } from './context';
import type { CreatedApiKey } from './domain/api-key-service';
import type {
  ApiKeyResolvers,
  CreatedApiKeyResolvers,
  MutationResolvers,
  QueryResolvers,
  Resolvers,
} from './__generated__/resolvers-types';

export const apiKeyQueryResolvers: QueryResolvers = {
  apiKeys: (_, _args, context) => context.services.apiKeys.list(context),
  apiKey: (_, args, context) => context.services.apiKeys.get(context, parseEntityId(args.id, 'id')),
  _verifyApiKey: (_, args, context) => context.services.apiKeys.verify(context, args.key),
};

export const apiKeyMutationResolvers: MutationResolvers = {
  createApiKey: (_, args, context) =>
    context.services.apiKeys.create(context, { name: args.input.name, scopes: args.input.scopes }),
  updateApiKey: (_, args, context) =>
    context.services.apiKeys.rename(context, parseEntityId(args.id, 'id'), { name: args.input.name }, args.expectedVersion),
  revokeApiKey: async (_, args, context) => {
    await context.services.apiKeys.revoke(context, parseEntityId(args.id, 'id'), args.expectedVersion);
    return true;
  },
};

/** ApiKey and CreatedApiKey from the API key's declaration; the created one reads the key beside the record. */
export const apiKeyTypeResolvers = {
  ApiKey: typeResolvers<AuthContext>(apiKeys) as ApiKeyResolvers,
  CreatedApiKey: viewResolvers<AuthContext>(apiKeys, 'CreatedApiKey', (created: CreatedApiKey) => ({
    ...created.apiKey,
    key: created.key,
  })) as CreatedApiKeyResolvers,
  ApiKeyPrincipal: {
    keyId: (p) => (p.keyId === null ? null : String(p.keyId)),
    userId: (p) => (p.userId === null ? null : String(p.userId)),
  },
} satisfies Resolvers;

export const resolvers = {
  Query: {
    _authVersion: () => '1',
    ...apiKeyQueryResolvers,
  },
  Mutation: {
    _createCredential: async (_, args, context) => {
      requireService(context.principal);
      const userId = parseEntityId(args.input.userId, 'userId');
      await context.services.credentials.create({ ...args.input, userId });
      return true;
    },
    _purgeUser: async (_, args, context) => {
      requireService(context.principal);
      const userId = parseEntityId(args.userId, 'userId');
      await context.services.apiKeys.purgeUser(context, userId);
      await context.services.credentials.purge(userId);
      return true;
    },
    login: (_, args, context) => context.services.tokens.login(args, context),
    refreshToken: (_, args, context) => context.services.tokens.refresh(args.refreshToken, context.requestId),
    logout: async (_, args, context) => {
      await context.services.tokens.logout(args.refreshToken, context.requestId);
      return true;
    },
    resetPassword: async (_, args, context) => {
      const userId = parseEntityId(args.userId, 'userId');
      await context.services.credentials.resetPassword(context, userId, args.input, args.expectedVersion);
      return { id: String(userId) };
    },
    ...apiKeyMutationResolvers,
  },
  ...apiKeyTypeResolvers,
} satisfies Resolvers;
