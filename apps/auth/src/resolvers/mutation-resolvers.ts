/** Root mutations of the auth subgraph: login and refresh-token lifecycle, password reset, internal credential calls. */
import { parseEntityId } from '@platform/contracts';
import { requireService, type ResetPasswordArgs } from '../domain/credential-service';
import type { AuthContext } from '../context';

export const mutationResolvers = {
  Mutation: {
    _createCredential: async (
      _: unknown,
      args: { input: { userId: string; username: string; password: string } },
      context: AuthContext,
    ) => {
      requireService(context.principal);
      const userId = parseEntityId(args.input.userId, 'userId');
      await context.services.credentials.create({ ...args.input, userId });
      return true;
    },
    _purgeUser: async (_: unknown, args: { userId: string }, context: AuthContext) => {
      requireService(context.principal);
      const userId = parseEntityId(args.userId, 'userId');
      await context.services.apiKeys.purgeUser(context, userId);
      await context.services.credentials.purge(userId);
      return true;
    },
    login: (_: unknown, args: { username: string; password: string; scope?: string | null }, context: AuthContext) =>
      context.services.tokens.login(args, context),
    refreshToken: (_: unknown, args: { refreshToken: string }, context: AuthContext) =>
      context.services.tokens.refresh(args.refreshToken, context.requestId),
    logout: async (_: unknown, args: { refreshToken: string }, context: AuthContext) => {
      await context.services.tokens.logout(args.refreshToken, context.requestId);
      return true;
    },
    resetPassword: async (_: unknown, args: { userId: string; input: ResetPasswordArgs }, context: AuthContext) => {
      const userId = parseEntityId(args.userId, 'userId');
      await context.services.credentials.resetPassword(context, userId, args.input);
      return { id: String(userId) };
    },
  },
};
