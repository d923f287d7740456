/** Assembles the posts subgraph from its dependencies; main.ts listens, tests call it in-process. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from 'mongodb';
import type { ApolloServer } from '@apollo/server';
import type { Logger } from '@platform/logging';
import { deriveCursorSecret } from '@platform/listing';
import {
  authenticateRequest,
  createGraphQLHandler,
  createSubgraphServer,
  type MongoCommandStats,
} from '@platform/service';
import typeDefs from './schema.graphql';
import { PostRepository } from './data-access/post-repository';
import { CommentRepository } from './data-access/comment-repository';
import { LikeRepository } from './data-access/like-repository';
import { PostService } from './domain/post-service';
import { CommentService } from './domain/comment-service';
import { createPostLoaders, type PostsContext } from './context';
import { postResolvers } from './resolvers/post-resolvers';
import { commentResolvers } from './resolvers/comment-resolvers';
import { userResolvers } from './resolvers/user-resolvers';
import { queryResolvers } from './resolvers/query-resolvers';
import { mutationResolvers } from './resolvers/mutation-resolvers';

export interface PostsAppDeps {
  db: Db;
  logger: Logger;
  jwtSecret: string;
  production: boolean;
  maxBodyBytes: number;
  /** Development only: report each request's MongoDB commands in `extensions.mongoCommands`. */
  commandStats?: MongoCommandStats | undefined;
}

export interface PostsApp {
  server: ApolloServer<PostsContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export async function createPostsApp(deps: PostsAppDeps): Promise<PostsApp> {
  const postRepository = new PostRepository(deps.db);
  const commentRepository = new CommentRepository(deps.db);
  const cursorSecret = deriveCursorSecret(deps.jwtSecret);
  const posts = new PostService(postRepository, commentRepository, new LikeRepository(deps.db), cursorSecret);
  const comments = new CommentService(commentRepository, postRepository, cursorSecret);
  const server = createSubgraphServer<PostsContext>(
    typeDefs,
    { ...postResolvers, ...commentResolvers, ...userResolvers, ...queryResolvers, ...mutationResolvers },
    { production: deps.production },
  );
  const stats = deps.production ? undefined : deps.commandStats;
  if (stats) server.addPlugin(stats.plugin<PostsContext>());
  await server.start();
  const handler = createGraphQLHandler<PostsContext>({
    server,
    maxBodyBytes: deps.maxBodyBytes,
    logger: deps.logger,
    context: async (req, requestId, logger) => ({
      ...authenticateRequest(req.headers, deps.jwtSecret),
      requestId,
      logger,
      loaders: createPostLoaders(postRepository, commentRepository),
      services: { posts, comments },
    }),
  });
  return { server, handler: stats ? stats.wrap(handler) : handler };
}
