/**
 * API key fields of the auth subgraph: createApiKey, apiKeys, apiKey, updateApiKey, revokeApiKey, and the gateway's
 * internal _verifyApiKey.
 */
import { parseEntityId } from '@platform/contracts';
import type { AuthContext } from '../context';
import type { ApiKeyPrincipal, CreatedApiKey, StoredApiKey } from '../domain/api-key-service';

const apiKeyFields = {
  id: (key: StoredApiKey) => String(key._id),
  createdAt: (key: StoredApiKey) => key.createdAt.toISOString(),
};

export const apiKeyQueryResolvers = {
  apiKeys: (_: unknown, _args: unknown, context: AuthContext) => context.services.apiKeys.list(context),
  apiKey: (_: unknown, args: { id: string }, context: AuthContext) =>
    context.services.apiKeys.get(context, parseEntityId(args.id, 'id')),
  _verifyApiKey: (_: unknown, args: { key: string }, context: AuthContext) => context.services.apiKeys.verify(context, args.key),
};

export const apiKeyMutationResolvers = {
  createApiKey: (_: unknown, args: { input: { name: string; scopes: string[] } }, context: AuthContext) =>
    context.services.apiKeys.create(context, { name: args.input.name, scopes: args.input.scopes }),
  updateApiKey: (
    _: unknown,
    args: { id: string; input: { name: string }; expectedVersion?: number | null },
    context: AuthContext,
  ) =>
    context.services.apiKeys.rename(
      context,
      parseEntityId(args.id, 'id'),
      { name: args.input.name },
      args.expectedVersion,
    ),
  revokeApiKey: async (_: unknown, args: { id: string; expectedVersion?: number | null }, context: AuthContext) => {
    await context.services.apiKeys.revoke(context, parseEntityId(args.id, 'id'), args.expectedVersion);
    return true;
  },
};

export const apiKeyTypeResolvers = {
  ApiKey: {
    ...apiKeyFields,
    lastUsedAt: (key: StoredApiKey) => key.lastUsedAt?.toISOString() ?? null,
    version: (key: StoredApiKey) => key.version ?? 0,
  },
  CreatedApiKey: {
    id: (created: CreatedApiKey) => apiKeyFields.id(created.apiKey),
    name: (created: CreatedApiKey) => created.apiKey.name,
    scopes: (created: CreatedApiKey) => created.apiKey.scopes,
    prefix: (created: CreatedApiKey) => created.apiKey.prefix,
    createdAt: (created: CreatedApiKey) => apiKeyFields.createdAt(created.apiKey),
    key: (created: CreatedApiKey) => created.key,
  },
  ApiKeyPrincipal: {
    keyId: (p: ApiKeyPrincipal) => (p.keyId === null ? null : String(p.keyId)),
    userId: (p: ApiKeyPrincipal) => (p.userId === null ? null : String(p.userId)),
  },
};
