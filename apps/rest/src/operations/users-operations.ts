/** Fixed GraphQL documents for the users routes; variables carry every value, so the gateway's caches hit. */
import { operation } from '../gateway/gateway-client';

export interface UserNode {
  id: string;
  username: string;
  email: string;
  fullName: string | null;
  isActive: boolean;
  role: string;
}

const USER_FIELDS = 'id username email fullName isActive role';

export const CreateUser = operation<{ createUser: UserNode }>(
  'CreateUser',
  `mutation CreateUser($input: CreateUserInput!) { createUser(input: $input) { ${USER_FIELDS} } }`,
);

export const GetUser = operation<{ user: UserNode | null }>(
  'GetUser',
  `query GetUser($id: ID!, $includeInactive: Boolean) { user(id: $id, includeInactive: $includeInactive) { ${USER_FIELDS} } }`,
);
