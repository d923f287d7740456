/**
 * API keys: create (the key is in this response only), list the caller's own keys, read, rename and revoke one (with a
 * strong ETag and `If-Match`, as items); a login token is required.
 */
import { z } from 'zod';
import { apiKeys, API_KEYS_PER_USER_MAX, graphqlInput, representation, restSchemas } from '@platform/contracts';
import { notFound } from '@platform/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import { versionTag } from '../http/conditional';
import { OPERATIONS } from '../gateway/gateway-client';
import type { ApiKeyFieldsFragment, CreateApiKeyMutation } from '../operations/__generated__/operations';
import { idParams, locationOf } from './record-routes';

const { CreateApiKey, GetApiKey, ListApiKeys, RevokeApiKey, UpdateApiKey } = OPERATIONS;

const ApiKeyIdParams = idParams({ key_id: 'API key' });
const KEY_PATH = '/api-keys/:key_id';

const schemas = restSchemas(apiKeys);
const toApiKeyPublic = representation(apiKeys);
const toInput = graphqlInput(apiKeys);
const toCreated = representation(apiKeys, 'created');

/** The one answer that carries the key itself (never cached: `carriesSecret`); `Location` names the key (read without the secret). */
const toApiKeyCreated = (created: CreateApiKeyMutation['createApiKey'], apiVersion: number | undefined) => ({
  status: 201,
  body: toCreated(created),
  headers: { location: locationOf(apiVersion, KEY_PATH, {}, created.id) },
});

/** One key with its strong ETag: the version a rename or a recorded use moves (If-Match on PATCH and DELETE). */
const apiKeyResponse = (key: ApiKeyFieldsFragment, version: number | undefined) => ({
  status: 200,
  body: toApiKeyPublic(key),
  headers: { etag: versionTag(key.version, version) },
});

const OWN_KEYS_ONLY = "Another user's key is reported as not found.";

/** Every API key route: a login token (an API key cannot manage keys), the caller's own keys only. */
const keysRoute = <P extends z.ZodType, B extends z.ZodType>(
  route: Omit<RouteDefinition<P, z.ZodType, B>, 'tags' | 'security'>,
): RouteDefinition => defineRoute<P, z.ZodType, B>({ tags: ['api-keys'], security: 'bearer', ...route });

/** A route on one of the caller's keys (`/api-keys/:key_id`): versioned, the id in the path. */
const ownKeyRoute = <B extends z.ZodType = z.ZodType>({
  description,
  ...route
}: Omit<
  RouteDefinition<typeof ApiKeyIdParams, z.ZodType, B>,
  'path' | 'tags' | 'security' | 'params' | 'versioned'
> & {
  description: string;
}): RouteDefinition =>
  keysRoute<typeof ApiKeyIdParams, B>({
    path: KEY_PATH,
    description: `${OWN_KEYS_ONLY} ${description}`,
    params: ApiKeyIdParams,
    versioned: true,
    ...route,
  });

export const apiKeysRoutes = [
  keysRoute({
    method: 'post',
    path: '/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'The key is returned in this response only and stored as a digest. Its scopes must be ones the bearer token holds. ' +
      'Send it as `X-API-Key`, `?api_key=` or cookie `api_key` on endpoints that accept API keys.',
    body: schemas.create,
    carriesSecret: true,
    responses: {
      201: { description: 'The created key, with the secret', schema: schemas.views['created']! },
      409: { description: 'Too many keys' },
    },
    handler: async ({ body, gateway, credentials, version }) => {
      const input = toInput(body) as { name: string; scopes: string[] };
      return toApiKeyCreated(
        (await gateway.execute(CreateApiKey, { input }, credentials)).createApiKey,
        version,
      );
    },
  }),
  keysRoute({
    method: 'get',
    path: '/api-keys',
    operationId: 'listApiKeys',
    summary: "List the caller's API keys",
    description: "The caller's own keys (admins included), oldest first; never the key or its digest.",
    responses: { 200: { description: 'The keys', schema: z.array(schemas.public).max(API_KEYS_PER_USER_MAX) } },
    handler: async ({ gateway, credentials }) => {
      const data = await gateway.execute(ListApiKeys, {}, credentials);
      return { status: 200, body: data.apiKeys.map(toApiKeyPublic) };
    },
  }),
  ownKeyRoute({
    method: 'get',
    operationId: 'getApiKey',
    summary: 'Retrieve one of your API keys',
    description: 'Never the key or its digest.',
    responses: { 200: { description: 'The key', schema: schemas.public } },
    handler: async ({ params, gateway, credentials, version }) => {
      const { apiKey } = await gateway.execute(GetApiKey, { id: params.key_id }, credentials);
      if (!apiKey) throw notFound('API key', params.key_id);
      return apiKeyResponse(apiKey, version);
    },
  }),
  ownKeyRoute({
    method: 'patch',
    operationId: 'updateApiKey',
    summary: 'Rename an API key',
    description:
      "Only the name changes; a key's scopes are fixed when it is created. A recorded use (`last_used_at`, at most once a minute) is a new version too, so an `If-Match` read before it meets 412.",
    body: schemas.update,
    responses: { 200: { description: 'The key after the change', schema: schemas.public } },
    handler: async ({ params, body, gateway, credentials, expectedVersion, version }) => {
      const input = toInput(body) as { name: string };
      const variables = { id: params.key_id, input, expectedVersion };
      return apiKeyResponse(
        (await gateway.execute(UpdateApiKey, variables, credentials)).updateApiKey,
        version,
      );
    },
  }),
  ownKeyRoute({
    method: 'delete',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: 'The gateway may accept a revoked key for a few more seconds (its verification cache).',
    responses: { 204: { description: 'Revoked' } },
    handler: async ({ params, gateway, credentials, expectedVersion }) => {
      await gateway.execute(RevokeApiKey, { id: params.key_id, expectedVersion }, credentials);
      return { status: 204 };
    },
  }),
];
