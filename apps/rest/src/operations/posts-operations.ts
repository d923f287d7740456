/** Fixed GraphQL documents for the posts, comments, likes and articles routes; variables carry every value. */
import { operation } from '../gateway/gateway-client';

export interface PostNode {
  id: string;
  authorId: string;
  title: string;
  body: string;
  likeCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface CommentNode {
  id: string;
  postId: string;
  authorId: string;
  body: string;
  createdAt: string;
}

interface Connection<N> {
  nodes: N[];
  pageInfo: { endCursor: string | null; hasNextPage: boolean };
  totalCount?: number | null;
}

const POST_FIELDS = 'id authorId title body likeCount createdAt updatedAt';
const COMMENT_FIELDS = 'id postId authorId body createdAt';
const PAGE = 'pageInfo { endCursor hasNextPage } totalCount @include(if: $withTotal)';
const LIST_VARIABLES = '$first: Int, $after: String, $offset: Int, $sort: [String!], $withTotal: Boolean!';
const LIST_ARGS = 'first: $first, after: $after, offset: $offset, filter: $filter, sort: $sort';

export const GetPost = operation<{ post: PostNode | null }>(
  'GetPost',
  `query GetPost($id: ID!) { post(id: $id) { ${POST_FIELDS} } }`,
);

export const ListPosts = operation<{ posts: Connection<PostNode> }>(
  'ListPosts',
  `query ListPosts(${LIST_VARIABLES}, $filter: PostFilter) { posts(${LIST_ARGS}) { nodes { ${POST_FIELDS} } ${PAGE} } }`,
);

/** A user's articles: the user (404 when absent) and their posts, fetched in parallel by the gateway. */
export const ListArticles = operation<{ user: { id: string } | null; posts: Connection<PostNode> }>(
  'ListArticles',
  `query ListArticles($userId: ID!, ${LIST_VARIABLES}, $filter: PostFilter) {
  user(id: $userId, includeInactive: true) { id }
  posts(${LIST_ARGS}) { nodes { ${POST_FIELDS} } ${PAGE} }
}`,
);

export const CreatePost = operation<{ createPost: PostNode }>(
  'CreatePost',
  `mutation CreatePost($input: CreatePostInput!) { createPost(input: $input) { ${POST_FIELDS} } }`,
);

export const ReplacePost = operation<{ replacePost: PostNode }>(
  'ReplacePost',
  `mutation ReplacePost($id: ID!, $input: CreatePostInput!) { replacePost(id: $id, input: $input) { ${POST_FIELDS} } }`,
);

export const UpdatePost = operation<{ updatePost: PostNode }>(
  'UpdatePost',
  `mutation UpdatePost($id: ID!, $input: UpdatePostInput!) { updatePost(id: $id, input: $input) { ${POST_FIELDS} } }`,
);

export const DeletePost = operation<{ deletePost: boolean }>(
  'DeletePost',
  'mutation DeletePost($id: ID!) { deletePost(id: $id) }',
);

export const LikePost = operation<{ likePost: PostNode }>(
  'LikePost',
  `mutation LikePost($id: ID!) { likePost(id: $id) { ${POST_FIELDS} } }`,
);

export const UnlikePost = operation<{ unlikePost: PostNode }>(
  'UnlikePost',
  `mutation UnlikePost($id: ID!) { unlikePost(id: $id) { ${POST_FIELDS} } }`,
);

export const ListComments = operation<{ comments: Connection<CommentNode> }>(
  'ListComments',
  `query ListComments($postId: ID!, ${LIST_VARIABLES}, $filter: CommentFilter) {
  comments(postId: $postId, ${LIST_ARGS}) { nodes { ${COMMENT_FIELDS} } ${PAGE} }
}`,
);

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

export const CreateComment = operation<{ createComment: CommentNode }>(
  'CreateComment',
  `mutation CreateComment($postId: ID!, $input: CreateCommentInput!) { createComment(postId: $postId, input: $input) { ${COMMENT_FIELDS} } }`,
);

export const UpdateComment = operation<{ updateComment: CommentNode }>(
  'UpdateComment',
  `mutation UpdateComment($id: ID!, $postId: ID, $input: UpdateCommentInput!) {
  updateComment(id: $id, postId: $postId, input: $input) { ${COMMENT_FIELDS} }
}`,
);

export const DeleteComment = operation<{ deleteComment: boolean }>(
  'DeleteComment',
  'mutation DeleteComment($id: ID!, $postId: ID) { deleteComment(id: $id, postId: $postId) }',
);
