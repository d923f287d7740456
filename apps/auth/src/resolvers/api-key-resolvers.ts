/**
 * API key fields of the auth subgraph: createApiKey, apiKeys, apiKey, updateApiKey, revokeApiKey, and the gateway's
 * internal _verifyApiKey.
 */
import { parseEntityId } from '@platform/contracts';
import type { StoredApiKey } from '../domain/api-key-service';
import type { MutationResolvers, QueryResolvers, Resolvers } from '../__generated__/resolvers-types';

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
