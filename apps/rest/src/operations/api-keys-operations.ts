/** Fixed GraphQL documents for the API key routes; variables carry every value, so the gateway's caches hit. */
import { operation } from '../gateway/gateway-client';

export interface ApiKeyNode {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

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
  'query ListApiKeys { apiKeys { id name scopes prefix createdAt lastUsedAt } }',
);

export const RevokeApiKey = operation<{ revokeApiKey: boolean }>(
  'RevokeApiKey',
  'mutation RevokeApiKey($id: ID!) { revokeApiKey(id: $id) }',
);
