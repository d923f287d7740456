/** Fixed GraphQL documents for the users routes; variables carry every value, so the gateway's caches hit. */
import { operation } from '../gateway/gateway-client';

export interface UserNode {
  id: string;
  username: string;
  email: string;
  fullName: string | null;
  isActive: boolean;
  role: string;
  /** Write counter behind the strong ETag (conditional.ts versionTag). */
  version: number;
}

const USER_FIELDS = 'id username email fullName isActive role version';

export const CreateUser = operation<{ createUser: UserNode }>(
  'CreateUser',
  `mutation CreateUser($input: CreateUserInput!) { createUser(input: $input) { ${USER_FIELDS} } }`,
);

export const GetUser = operation<{ user: UserNode | null }>(
  'GetUser',
  `query GetUser($id: ID!, $includeInactive: Boolean) { user(id: $id, includeInactive: $includeInactive) { ${USER_FIELDS} } }`,
);

export const GetMe = operation<{ me: UserNode | null }>('GetMe', `query GetMe { me { ${USER_FIELDS} } }`);

export const UpdateUser = operation<{ updateUser: UserNode }>(
  'UpdateUser',
  `mutation UpdateUser($id: ID!, $input: UpdateUserInput!, $expectedVersion: Int) { updateUser(id: $id, input: $input, expectedVersion: $expectedVersion) { ${USER_FIELDS} } }`,
);

export const ReplaceUser = operation<{ replaceUser: UserNode }>(
  'ReplaceUser',
  `mutation ReplaceUser($id: ID!, $input: UpdateUserInput!, $expectedVersion: Int) { replaceUser(id: $id, input: $input, expectedVersion: $expectedVersion) { ${USER_FIELDS} } }`,
);

export const DeleteUser = operation<{ deleteUser: boolean }>(
  'DeleteUser',
  'mutation DeleteUser($id: ID!, $expectedVersion: Int) { deleteUser(id: $id, expectedVersion: $expectedVersion) }',
);

export const ActivateUser = operation<{ activateUser: UserNode }>(
  'ActivateUser',
  `mutation ActivateUser($id: ID!) { activateUser(id: $id) { ${USER_FIELDS} } }`,
);

export const DeactivateUser = operation<{ deactivateUser: UserNode }>(
  'DeactivateUser',
  `mutation DeactivateUser($id: ID!) { deactivateUser(id: $id) { ${USER_FIELDS} } }`,
);

export const ResetPassword = operation<{ resetPassword: UserNode }>(
  'ResetPassword',
  `mutation ResetPassword($id: ID!, $input: ResetPasswordInput!) { resetPassword(userId: $id, input: $input) { ${USER_FIELDS} } }`,
);

export interface UserConnectionData {
  users: {
    nodes: UserNode[];
    pageInfo: { endCursor: string | null; hasNextPage: boolean };
    totalCount?: number;
  };
}

export const ListUsers = operation<UserConnectionData>(
  'ListUsers',
  `query ListUsers($first: Int, $after: String, $offset: Int, $filter: UserFilter, $sort: [String!], $withTotal: Boolean!) {
  users(first: $first, after: $after, offset: $offset, filter: $filter, sort: $sort) {
    nodes { ${USER_FIELDS} }
    pageInfo { endCursor hasNextPage }
    totalCount @include(if: $withTotal)
  }
}`,
);
