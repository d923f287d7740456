/** The users routes' operations (documents in users.graphql); variables carry every value, so the gateway's caches hit. */
import { GENERATED_OPERATIONS } from './generated-operations';

export type { UserFieldsFragment } from './__generated__/operations';

export const {
  CreateUser,
  GetUser,
  GetMe,
  UpdateUser,
  ReplaceUser,
  DeleteUser,
  ActivateUser,
  DeactivateUser,
  ResetPassword,
  ListUsers,
} = GENERATED_OPERATIONS;
