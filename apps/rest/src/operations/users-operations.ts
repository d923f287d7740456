/** The users routes' operations (documents in users.graphql); variables carry every value, so the gateway's caches hit. */
import { operation } from '../gateway/gateway-client';
import {
  ActivateUserDocument,
  CreateUserDocument,
  DeactivateUserDocument,
  DeleteUserDocument,
  GetMeDocument,
  GetUserDocument,
  ListUsersDocument,
  ReplaceUserDocument,
  ResetPasswordDocument,
  UpdateUserDocument,
} from './__generated__/operations';

export type { UserFieldsFragment } from './__generated__/operations';

export const CreateUser = operation(CreateUserDocument);
export const GetUser = operation(GetUserDocument);
export const GetMe = operation(GetMeDocument);
export const UpdateUser = operation(UpdateUserDocument);
export const ReplaceUser = operation(ReplaceUserDocument);
export const DeleteUser = operation(DeleteUserDocument);
export const ActivateUser = operation(ActivateUserDocument);
export const DeactivateUser = operation(DeactivateUserDocument);
export const ResetPassword = operation(ResetPasswordDocument);
export const ListUsers = operation(ListUsersDocument);
