/** Per-request context of the users subgraph: caller, request id, logger, batched loaders, services. */
import DataLoader from 'dataloader';
import type { BaseSubgraphContext } from '@platform/graphql-server';
import type { UserDocument, UserRepository } from './data-access/user-repository';
import type { UserService } from './domain/user-service';
import type { UserListing } from './domain/user-listing';

export interface UsersContext extends BaseSubgraphContext {
  loaders: { userById: DataLoader<number, UserDocument | null> };
  services: { users: UserService; listing: UserListing };
}

/** One `$in` query per request for every user entity the gateway asks about. */
export function createUserLoaders(repository: UserRepository): UsersContext['loaders'] {
  return {
    userById: new DataLoader<number, UserDocument | null>(async (ids) => {
      const found = await repository.findByIds(ids);
      const byId = new Map(found.map((u) => [u._id, u]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}
