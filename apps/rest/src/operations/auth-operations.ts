/** The token routes' operations (login, refresh, logout; documents in auth.graphql), all served by the auth subgraph. */
import { operation } from '../gateway/gateway-client';
import { LoginDocument, LogoutDocument, RefreshTokenDocument } from './__generated__/operations';

export type { TokenPairFieldsFragment } from './__generated__/operations';

export const Login = operation(LoginDocument);
export const RefreshToken = operation(RefreshTokenDocument);
export const Logout = operation(LogoutDocument);
