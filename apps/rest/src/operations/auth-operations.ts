/** Fixed GraphQL documents for the token routes (login, refresh, logout), all served by the auth subgraph. */
import { operation } from '../gateway/gateway-client';

export interface TokenPairNode {
  accessToken: string;
  tokenType: string;
  expiresIn: number;
  refreshToken: string;
  scopes: string[];
}

const PAIR_FIELDS = 'accessToken tokenType expiresIn refreshToken scopes';

export const Login = operation<{ login: TokenPairNode }>(
  'Login',
  `mutation Login($username: String!, $password: String!, $scope: String) { login(username: $username, password: $password, scope: $scope) { ${PAIR_FIELDS} } }`,
);

export const RefreshToken = operation<{ refreshToken: TokenPairNode }>(
  'RefreshToken',
  `mutation RefreshToken($refreshToken: String!) { refreshToken(refreshToken: $refreshToken) { ${PAIR_FIELDS} } }`,
);

export const Logout = operation<{ logout: boolean }>('Logout', 'mutation Logout($refreshToken: String!) { logout(refreshToken: $refreshToken) }');
