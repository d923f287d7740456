/** Root mutations of the auth subgraph: login and refresh-token lifecycle, password reset, internal credential calls. */
import { parseEntityId } from '@platform/contracts';
import { requireService } from '../domain/credential-service';
import type { Resolvers } from '../__generated__/resolvers-types';

export const mutationResolvers = {
  Mutation: {
    _createCredential: async (_, args, context) => {
      requireService(context.principal);
      const userId = parseEntityId(args.input.userId, 'userId');
      await context.services.credentials.create({ ...args.input, userId });
      return true;
    },
    _purgeUser: async (_, args, context) => {
      requireService(context.principal);
      const userId = parseEntityId(args.userId, 'userId');
      await context.services.apiKeys.purgeUser(context, userId);
      await context.services.credentials.purge(userId);
      return true;
    },
    login: (_, args, context) => context.services.tokens.login(args, context),
    refreshToken: (_, args, context) => context.services.tokens.refresh(args.refreshToken, context.requestId),
    logout: async (_, args, context) => {
      await context.services.tokens.logout(args.refreshToken, context.requestId);
      return true;
    },
    resetPassword: async (_, args, context) => {
      const userId = parseEntityId(args.userId, 'userId');
      await context.services.credentials.resetPassword(context, userId, args.input);
      return { id: String(userId) };
    },
  },
} satisfies Resolvers;
