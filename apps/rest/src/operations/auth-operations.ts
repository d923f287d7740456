/** The token routes' operations (login, refresh, logout; documents in auth.graphql), all served by the auth subgraph. */
import { GENERATED_OPERATIONS } from './generated-operations';

export type { TokenPairFieldsFragment } from './__generated__/operations';

export const { Login, RefreshToken, Logout } = GENERATED_OPERATIONS;
