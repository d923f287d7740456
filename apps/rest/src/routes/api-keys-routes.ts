/** API keys: create (the key is in this response only), list the caller's own keys, revoke; a login token is required. */
import { z } from 'zod';
import { API_KEYS_PER_USER_MAX, ApiKeyCreate, ApiKeyCreated, ApiKeyPublic, entityIdParam } from '@platform/contracts';
import { defineRoute } from '../http/route';
import { CreateApiKey, ListApiKeys, RevokeApiKey, type ApiKeyFieldsFragment } from '../operations/api-keys-operations';

const ApiKeyIdParams = z.object({ key_id: entityIdParam('API key id, an integer >= 1') });

const toApiKeyPublic = (key: ApiKeyFieldsFragment) => ({
  id: Number(key.id),
  name: key.name,
  scopes: key.scopes,
  prefix: key.prefix,
  created_at: key.createdAt,
  last_used_at: key.lastUsedAt,
});

export const apiKeysRoutes = [
  defineRoute({
    method: 'post',
    path: '/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'The key is returned in this response only and stored as a digest. Its scopes must be ones the bearer token holds. ' +
      'Send it as `X-API-Key`, `?api_key=` or cookie `api_key` on endpoints that accept API keys.',
    tags: ['api-keys'],
    security: 'bearer',
    body: ApiKeyCreate,
    responses: {
      201: { description: 'The created key, with the secret', schema: ApiKeyCreated },
      409: { description: 'Too many keys' },
    },
    handler: async ({ body, gateway, credentials }) => {
      const data = await gateway.execute(
        CreateApiKey,
        { input: { name: body.name, scopes: body.scopes } },
        credentials,
      );
      const created = data.createApiKey;
      return {
        status: 201,
        body: {
          id: Number(created.id),
          name: created.name,
          scopes: created.scopes,
          key: created.key,
          created_at: created.createdAt,
        },
        headers: { 'cache-control': 'no-store' },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api-keys',
    operationId: 'listApiKeys',
    summary: "List the caller's API keys",
    description: "The caller's own keys (admins included), oldest first; never the key or its digest.",
    tags: ['api-keys'],
    security: 'bearer',
    responses: { 200: { description: 'The keys', schema: z.array(ApiKeyPublic).max(API_KEYS_PER_USER_MAX) } },
    handler: async ({ gateway, credentials }) => {
      const data = await gateway.execute(ListApiKeys, {}, credentials);
      return { status: 200, body: data.apiKeys.map(toApiKeyPublic) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api-keys/:key_id',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description:
      "Another user's key is reported as not found. The gateway may accept a revoked key for a few more seconds (its verification cache).",
    tags: ['api-keys'],
    security: 'bearer',
    params: ApiKeyIdParams,
    responses: { 204: { description: 'Revoked' } },
    handler: async ({ params, gateway, credentials }) => {
      await gateway.execute(RevokeApiKey, { id: String(params.key_id) }, credentials);
      return { status: 204 };
    },
  }),
];
