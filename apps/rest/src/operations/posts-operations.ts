/** The posts, comments, likes and articles routes' operations (documents in posts.graphql); variables carry every value. */
import { GENERATED_OPERATIONS } from './generated-operations';

export type { CommentFieldsFragment, PostFieldsFragment } from './__generated__/operations';

export const {
  GetPost,
  ListPosts,
  /** A user's articles: the user (404 when absent) and their posts, fetched in parallel by the gateway. */
  ListArticles,
  CreatePost,
  ReplacePost,
  UpdatePost,
  DeletePost,
  LikePost,
  UnlikePost,
  ListComments,
  /** An article's comments: the post (to check it is that user's) and its comments. */
  ListArticleComments,
  GetComment,
  CreateComment,
  UpdateComment,
  DeleteComment,
} = GENERATED_OPERATIONS;
