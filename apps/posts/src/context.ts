/** Per-request context of the posts subgraph: caller, request id, logger, batched loaders, services. */
import DataLoader from 'dataloader';
import type { BaseSubgraphContext } from '@platform/graphql-server';
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

function byIdLoader<T extends { _id: number }>(
  find: (ids: readonly number[]) => Promise<T[]>,
): DataLoader<number, T | null> {
  return new DataLoader<number, T | null>(async (ids) => {
    const byId = new Map((await find(ids)).map((doc) => [doc._id, doc]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}

/** Loaders keyed by parent id, one per `first` value, each answering a batch with one query grouped in memory. */
function groupedLoaders<T>(
  find: (parentIds: readonly number[]) => Promise<T[]>,
  parentOf: (doc: T) => number,
) {
  const loaders = new Map<number, DataLoader<number, T[]>>();
  return (first: number): DataLoader<number, T[]> => {
    let loader = loaders.get(first);
    if (!loader) {
      loader = new DataLoader<number, T[]>(async (parentIds) => {
        const grouped = new Map<number, T[]>(parentIds.map((id) => [id, []]));
        for (const doc of await find(parentIds)) {
          const list = grouped.get(parentOf(doc));
          if (list && list.length < first) list.push(doc);
        }
        return parentIds.map((id) => grouped.get(id) ?? []);
      });
      loaders.set(first, loader);
    }
    return loader;
  };
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
      (ids) => posts.findByAuthors(ids),
      (post) => post.authorId,
    ),
    commentsByPost: groupedLoaders(
      (ids) => comments.findByPosts(ids),
      (comment) => comment.postId,
    ),
  };
}
