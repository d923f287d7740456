/** Fixed GraphQL documents for the posts, comments, likes and articles routes; variables carry every value. */
import { operation } from '../gateway/gateway-client';
import {
  LIST_ARGS,
  LIST_VARIABLES,
  PAGE,
  createOperation,
  idMutation,
  listOperation,
  versionedDelete,
  versionedWrite,
  type Connection,
} from './record-operations';

export interface PostNode {
  id: string;
  authorId: string;
  title: string;
  body: string;
  likeCount: number;
  createdAt: string;
  updatedAt: string;
  version: number;
}

export interface CommentNode {
  id: string;
  postId: string;
  authorId: string;
  body: string;
  createdAt: string;
  version: number;
}

const POST_FIELDS = 'id authorId title body likeCount createdAt updatedAt version';
const COMMENT_FIELDS = 'id postId authorId body createdAt version';

export const GetPost = operation<{ post: PostNode | null }>(
  'GetPost',
  `query GetPost($id: ID!) { post(id: $id) { ${POST_FIELDS} } }`,
);

export const ListPosts = listOperation<'posts', PostNode>('ListPosts', 'posts', 'PostFilter', POST_FIELDS);

/** A user's articles: the user (404 when absent) and their posts, fetched in parallel by the gateway. */
export const ListArticles = operation<{ user: { id: string } | null; posts: Connection<PostNode> }>(
  'ListArticles',
  `query ListArticles($userId: ID!, ${LIST_VARIABLES}, $filter: PostFilter) {
  user(id: $userId, includeInactive: true) { id }
  posts(${LIST_ARGS}) { nodes { ${POST_FIELDS} } ${PAGE} }
}`,
);

export const CreatePost = createOperation<PostNode>('Post', POST_FIELDS);
export const ReplacePost = versionedWrite<PostNode>('Replace', 'Post', 'CreatePostInput', POST_FIELDS);
export const UpdatePost = versionedWrite<PostNode>('Update', 'Post', 'UpdatePostInput', POST_FIELDS);
export const DeletePost = versionedDelete('Post');

export const LikePost = idMutation<PostNode>('LikePost', POST_FIELDS);
export const UnlikePost = idMutation<PostNode>('UnlikePost', POST_FIELDS);

export const ListComments = listOperation<'comments', CommentNode>('ListComments', 'comments', 'CommentFilter', COMMENT_FIELDS, 'postId');

/** An article's comments: the post (to check it is that user's) and its comments. */
export const ListArticleComments = operation<{
  post: { id: string; authorId: string } | null;
  comments: Connection<CommentNode>;
}>(
  'ListArticleComments',
  `query ListArticleComments($postId: ID!, ${LIST_VARIABLES}, $filter: CommentFilter) {
  post(id: $postId) { id authorId }
  comments(postId: $postId, ${LIST_ARGS}) { nodes { ${COMMENT_FIELDS} } ${PAGE} }
}`,
);

export const GetComment = operation<{ comment: CommentNode | null }>(
  'GetComment',
  `query GetComment($id: ID!, $postId: ID) { comment(id: $id, postId: $postId) { ${COMMENT_FIELDS} } }`,
);

export const CreateComment = createOperation<CommentNode>('Comment', COMMENT_FIELDS, 'postId');
export const UpdateComment = versionedWrite<CommentNode>('Update', 'Comment', 'UpdateCommentInput', COMMENT_FIELDS, 'postId');
export const DeleteComment = versionedDelete('Comment', 'postId');
