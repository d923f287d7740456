/** Root mutations of the auth subgraph. */
import { validationError } from '@platform/errors';
import { requireService } from '../domain/credential-service';
import type { AuthContext } from '../context';

export const mutationResolvers = {
  Mutation: {
    _createCredential: async (
      _: unknown,
      args: { input: { userId: string; username: string; password: string } },
      context: AuthContext,
    ) => {
      requireService(context.principal);
      const userId = Number(args.input.userId);
      if (!Number.isSafeInteger(userId) || userId < 1) throw validationError([{ field: 'userId', message: 'must be an integer >= 1' }]);
      await context.services.credentials.create({ ...args.input, userId });
      return true;
    },
  },
};
