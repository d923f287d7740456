/** Per-request context of the posts subgraph: caller, request id, logger, batched loaders, services. */
import DataLoader from 'dataloader';
import { byIdLoader, groupedLoaders, type BaseSubgraphContext } from '@platform/graphql-server';
import type { PostDocument, PostRepository } from './data-access/post-repository';
import type { CommentDocument, CommentRepository } from './data-access/comment-repository';
import type { LikeRepository } from './data-access/like-repository';
import type { PostService } from './domain/post-service';
import type { CommentService } from './domain/comment-service';

export interface PostsContext extends BaseSubgraphContext {
  loaders: PostLoaders;
  services: { posts: PostService; comments: CommentService };
}

export interface PostLoaders {
  postById: DataLoader<number, PostDocument | null>;
  commentById: DataLoader<number, CommentDocument | null>;
  /** Post.likeCount: one aggregate over `likes` per request for every post in the response. */
  likeCountByPost: DataLoader<number, number>;
  /** User.posts: one `$in` query on authorId per request (per distinct `first`), grouped and capped per author. */
  postsByAuthor(first: number): DataLoader<number, PostDocument[]>;
  /** Post.comments: one `$in` query on postId per request (per distinct `first`), grouped and capped per post. */
  commentsByPost(first: number): DataLoader<number, CommentDocument[]>;
}

export function createPostLoaders(
  posts: PostRepository,
  comments: CommentRepository,
  likes: LikeRepository,
): PostLoaders {
  return {
    postById: byIdLoader((ids) => posts.findByIds(ids)),
    commentById: byIdLoader((ids) => comments.findByIds(ids)),
    likeCountByPost: new DataLoader<number, number>(async (postIds) => {
      const counts = await likes.countByPosts(postIds);
      return postIds.map((id) => counts.get(id) ?? 0);
    }),
    postsByAuthor: groupedLoaders(
      (ids) => posts.findByParents('authorId', ids),
      (post) => post.authorId,
    ),
    commentsByPost: groupedLoaders(
      (ids) => comments.findByParents('postId', ids),
      (comment) => comment.postId,
    ),
  };
}
