/** Fixed GraphQL documents for the API key routes; variables carry every value, so the gateway's caches hit. */
import { operation } from '../gateway/gateway-client';

export interface ApiKeyNode {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** Write counter behind the strong ETag (conditional.ts versionTag). */
  version: number;
}

const API_KEY_FIELDS = 'id name scopes prefix createdAt lastUsedAt version';

export interface CreatedApiKeyNode {
  id: string;
  name: string;
  scopes: string[];
  key: string;
  createdAt: string;
}

export const CreateApiKey = operation<{ createApiKey: CreatedApiKeyNode }>(
  'CreateApiKey',
  'mutation CreateApiKey($input: CreateApiKeyInput!) { createApiKey(input: $input) { id name scopes key createdAt } }',
);

export const ListApiKeys = operation<{ apiKeys: ApiKeyNode[] }>(
  'ListApiKeys',
  `query ListApiKeys { apiKeys { ${API_KEY_FIELDS} } }`,
);

export const GetApiKey = operation<{ apiKey: ApiKeyNode | null }>(
  'GetApiKey',
  `query GetApiKey($id: ID!) { apiKey(id: $id) { ${API_KEY_FIELDS} } }`,
);

export const UpdateApiKey = operation<{ updateApiKey: ApiKeyNode }>(
  'UpdateApiKey',
  `mutation UpdateApiKey($id: ID!, $input: UpdateApiKeyInput!, $expectedVersion: Int) { updateApiKey(id: $id, input: $input, expectedVersion: $expectedVersion) { ${API_KEY_FIELDS} } }`,
);

export const RevokeApiKey = operation<{ revokeApiKey: boolean }>(
  'RevokeApiKey',
  'mutation RevokeApiKey($id: ID!, $expectedVersion: Int) { revokeApiKey(id: $id, expectedVersion: $expectedVersion) }',
);
