/** Assembles the posts subgraph from its dependencies; main.ts listens, tests call it in-process. */
import { deriveCursorSecret } from '@platform/listing';
import { DeletionMarks } from '@platform/mongo';
import { startSubgraph, type StartedSubgraph, type SubgraphAppDeps } from '@platform/graphql-server';
import typeDefs from './schema.graphql';
import { PostRepository } from './data-access/post-repository';
import { CommentRepository } from './data-access/comment-repository';
import { LikeRepository } from './data-access/like-repository';
import { PostService } from './domain/post-service';
import { CommentService } from './domain/comment-service';
import { DeletionGuard } from './domain/deletion-guard';
import { createPostLoaders, type PostsContext } from './context';
import { resolvers } from './resolvers';

export type PostsAppDeps = SubgraphAppDeps;

export type PostsApp = StartedSubgraph<PostsContext>;

export async function createPostsApp(deps: PostsAppDeps): Promise<PostsApp> {
  const postRepository = new PostRepository(deps.db);
  const commentRepository = new CommentRepository(deps.db);
  const likeRepository = new LikeRepository(deps.db);
  const cursorSecret = deriveCursorSecret(deps.jwtSecret);
  const guard = new DeletionGuard(new DeletionMarks(deps.db));
  const posts = new PostService(
    postRepository,
    commentRepository,
    likeRepository,
    guard,
    cursorSecret,
    deps.events,
  );
  const comments = new CommentService(commentRepository, postRepository, guard, cursorSecret, deps.events);
  return startSubgraph<PostsContext>({
    ...deps,
    typeDefs,
    resolvers,
    services: { posts, comments },
    loaders: () => createPostLoaders(postRepository, commentRepository, likeRepository),
  });
}
