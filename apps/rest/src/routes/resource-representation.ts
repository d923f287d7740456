/** GraphQL items, posts and comments -> their REST representations (snake_case, integer ids, ISO timestamps). */
import type {
  ItemFieldsFragment,
  CommentFieldsFragment,
  PostFieldsFragment,
} from '../operations/__generated__/operations';

export const toItemPublic = (item: ItemFieldsFragment) => ({
  id: Number(item.id),
  name: item.name,
  description: item.description,
  price: item.price,
  owner_id: item.ownerId === null ? null : Number(item.ownerId),
});

export const toPostPublic = (post: PostFieldsFragment) => ({
  id: Number(post.id),
  author_id: Number(post.authorId),
  title: post.title,
  body: post.body,
  like_count: post.likeCount,
  created_at: post.createdAt,
  updated_at: post.updatedAt,
});

export const toCommentPublic = (comment: CommentFieldsFragment) => ({
  id: Number(comment.id),
  post_id: Number(comment.postId),
  author_id: Number(comment.authorId),
  body: comment.body,
  created_at: comment.createdAt,
});

/** REST item body (snake_case, integer owner) -> GraphQL input, keeping only the fields the client sent (PATCH). */
export function toItemInput(body: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (key === 'owner_id') input['ownerId'] = value === null ? null : String(value);
    else input[key] = value;
  }
  return input;
}
