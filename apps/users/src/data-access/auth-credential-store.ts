/** The credential side of registration, held by the auth subgraph and reached over its internal GraphQL API. */
import type { InternalGraphQLClient } from '@platform/service';
import type { CredentialStore } from '../domain/user-service';

const CREATE_CREDENTIAL = /* GraphQL */ `
  mutation CreateCredential($input: CreateCredentialInput!) {
    _createCredential(input: $input)
  }
`;

export class AuthCredentialStore implements CredentialStore {
  constructor(private readonly auth: InternalGraphQLClient) {}

  async createCredential(input: { userId: number; username: string; password: string }, requestId: string): Promise<void> {
    await this.auth.request(CREATE_CREDENTIAL, { input: { ...input, userId: String(input.userId) } }, requestId);
  }
}
