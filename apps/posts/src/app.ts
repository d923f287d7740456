/** Assembles the posts subgraph from its dependencies; main.ts listens, tests call it in-process. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from 'mongodb';
import type { ApolloServer } from '@apollo/server';
import type { Logger } from '@platform/logging';
import { deriveCursorSecret } from '@platform/listing';
import { DeletionMarks } from '@platform/mongo';
import type { SubgraphWrites } from '@platform/read-cache';
import { startSubgraph, type GraphQLLimits, type MongoCommandStats } from '@platform/graphql-server';
import typeDefs from './schema.graphql';
import { PostRepository } from './data-access/post-repository';
import { CommentRepository } from './data-access/comment-repository';
import { LikeRepository } from './data-access/like-repository';
import { PostService } from './domain/post-service';
import { CommentService } from './domain/comment-service';
import { DeletionGuard } from './domain/deletion-guard';
import { createPostLoaders, type PostsContext } from './context';
import { postResolvers } from './resolvers/post-resolvers';
import { commentResolvers } from './resolvers/comment-resolvers';
import { userResolvers } from './resolvers/user-resolvers';
import { queryResolvers } from './resolvers/query-resolvers';
import { mutationResolvers } from './resolvers/mutation-resolvers';

export interface PostsAppDeps {
  /** Operation limits (GRAPHQL_MAX_*); the defaults when absent. */
  limits?: GraphQLLimits | undefined;
  /** Read-cache invalidation after each mutation (runSubgraph's); absent: none (tests in-process). */
  writes?: SubgraphWrites | undefined;
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
  const likeRepository = new LikeRepository(deps.db);
  const cursorSecret = deriveCursorSecret(deps.jwtSecret);
  const guard = new DeletionGuard(new DeletionMarks(deps.db));
  const posts = new PostService(postRepository, commentRepository, likeRepository, guard, cursorSecret);
  const comments = new CommentService(commentRepository, postRepository, guard, cursorSecret);
  const { server, handler } = await startSubgraph<PostsContext>({
    typeDefs,
    resolvers: {
      ...postResolvers,
      ...commentResolvers,
      ...userResolvers,
      ...queryResolvers,
      ...mutationResolvers,
    },
    production: deps.production,
    limits: deps.limits,
    writes: deps.writes,
    jwtSecret: deps.jwtSecret,
    maxBodyBytes: deps.maxBodyBytes,
    logger: deps.logger,
    commandStats: deps.commandStats,
    context: (base) => ({
      ...base,
      loaders: createPostLoaders(postRepository, commentRepository, likeRepository),
      services: { posts, comments },
    }),
  });
  return { server, handler };
}
