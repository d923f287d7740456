/** The API key routes' operations (documents in api-keys.graphql); variables carry every value, so the gateway's caches hit. */
import { operation } from '../gateway/gateway-client';
import {
  CreateApiKeyDocument,
  GetApiKeyDocument,
  ListApiKeysDocument,
  RevokeApiKeyDocument,
  UpdateApiKeyDocument,
} from './__generated__/operations';

export type { ApiKeyFieldsFragment, CreateApiKeyMutation } from './__generated__/operations';

export const CreateApiKey = operation(CreateApiKeyDocument);
export const ListApiKeys = operation(ListApiKeysDocument);
export const GetApiKey = operation(GetApiKeyDocument);
export const UpdateApiKey = operation(UpdateApiKeyDocument);
export const RevokeApiKey = operation(RevokeApiKeyDocument);
