/**
 * Resolvers of the auth subgraph, all in one map: login and the refresh-token lifecycle, password reset, internal
 * credential calls, and API keys (createApiKey, apiKeys, apiKey, updateApiKey, revokeApiKey, and the gateway's
 * internal _verifyApiKey). The API key fields are also exported as their own groups.
 */
import { parseEntityId } from '@platform/contracts';
import { requireService } from './domain/credential-service';
import type { StoredApiKey } from './domain/api-key-service';
import type { MutationResolvers, QueryResolvers, Resolvers } from './__generated__/resolvers-types';

const apiKeyFields = {
  id: (key: StoredApiKey) => String(key._id),
  createdAt: (key: StoredApiKey) => key.createdAt.toISOString(),
};

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

export const apiKeyTypeResolvers = {
  ApiKey: {
    ...apiKeyFields,
    lastUsedAt: (key) => key.lastUsedAt?.toISOString() ?? null,
    version: (key) => key.version ?? 0,
  },
  CreatedApiKey: {
    id: (created) => apiKeyFields.id(created.apiKey),
    name: (created) => created.apiKey.name,
    scopes: (created) => created.apiKey.scopes,
    prefix: (created) => created.apiKey.prefix,
    createdAt: (created) => apiKeyFields.createdAt(created.apiKey),
    key: (created) => created.key,
  },
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
