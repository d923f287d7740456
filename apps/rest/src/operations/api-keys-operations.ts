/** The API key routes' operations (documents in api-keys.graphql); variables carry every value, so the gateway's caches hit. */
import { GENERATED_OPERATIONS } from './generated-operations';

export type { ApiKeyFieldsFragment, CreateApiKeyMutation } from './__generated__/operations';

export const { CreateApiKey, ListApiKeys, GetApiKey, UpdateApiKey, RevokeApiKey } = GENERATED_OPERATIONS;
