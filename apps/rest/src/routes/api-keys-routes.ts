/**
 * API keys: create (the key is in this response only), list the caller's own keys, read, rename and revoke one (with a
 * strong ETag and `If-Match`, as items); a login token is required.
 */
import { z } from 'zod';
import {
  API_KEYS_PER_USER_MAX,
  ApiKeyCreate,
  ApiKeyCreated,
  ApiKeyPublic,
  ApiKeyUpdate,
  entityIdParam,
} from '@platform/contracts';
import { notFound } from '@platform/errors';
import { defineRoute } from '../http/route';
import { versionTag } from '../http/conditional';
import {
  CreateApiKey,
  GetApiKey,
  ListApiKeys,
  RevokeApiKey,
  UpdateApiKey,
  type ApiKeyFieldsFragment,
} from '../operations/api-keys-operations';

const ApiKeyIdParams = z.object({ key_id: entityIdParam('API key id, an integer >= 1') });

const toApiKeyPublic = (key: ApiKeyFieldsFragment) => ({
  id: Number(key.id),
  name: key.name,
  scopes: key.scopes,
  prefix: key.prefix,
  created_at: key.createdAt,
  last_used_at: key.lastUsedAt,
});

/** One key with its strong ETag: the version a rename or a recorded use moves (If-Match on PATCH and DELETE). */
const apiKeyResponse = (key: ApiKeyFieldsFragment, version: number | undefined) => ({
  status: 200,
  body: toApiKeyPublic(key),
  headers: { etag: versionTag(key.version, version) },
});

const OWN_KEYS_ONLY = "Another user's key is reported as not found.";

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
    method: 'get',
    path: '/api-keys/:key_id',
    operationId: 'getApiKey',
    summary: 'Retrieve one of your API keys',
    description: `${OWN_KEYS_ONLY} Never the key or its digest.`,
    tags: ['api-keys'],
    security: 'bearer',
    params: ApiKeyIdParams,
    responses: { 200: { description: 'The key', schema: ApiKeyPublic } },
    versioned: true,
    handler: async ({ params, gateway, credentials, version }) => {
      const data = await gateway.execute(GetApiKey, { id: String(params.key_id) }, credentials);
      if (!data.apiKey) throw notFound('API key', params.key_id);
      return apiKeyResponse(data.apiKey, version);
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api-keys/:key_id',
    operationId: 'updateApiKey',
    summary: 'Rename an API key',
    description: `${OWN_KEYS_ONLY} Only the name changes; a key's scopes are fixed when it is created. A recorded use (\`last_used_at\`, at most once a minute) is a new version too, so an \`If-Match\` read before it meets 412.`,
    tags: ['api-keys'],
    security: 'bearer',
    params: ApiKeyIdParams,
    body: ApiKeyUpdate,
    responses: { 200: { description: 'The key after the change', schema: ApiKeyPublic } },
    versioned: true,
    handler: async ({ params, body, gateway, credentials, expectedVersion, version }) => {
      const data = await gateway.execute(
        UpdateApiKey,
        { id: String(params.key_id), input: { name: body.name }, expectedVersion },
        credentials,
      );
      return apiKeyResponse(data.updateApiKey, version);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api-keys/:key_id',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: `${OWN_KEYS_ONLY} The gateway may accept a revoked key for a few more seconds (its verification cache).`,
    tags: ['api-keys'],
    security: 'bearer',
    params: ApiKeyIdParams,
    responses: { 204: { description: 'Revoked' } },
    versioned: true,
    handler: async ({ params, gateway, credentials, expectedVersion }) => {
      await gateway.execute(RevokeApiKey, { id: String(params.key_id), expectedVersion }, credentials);
      return { status: 204 };
    },
  }),
];
