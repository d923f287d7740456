/** The posts, comments, likes and articles routes' operations (documents in posts.graphql); variables carry every value. */
import { operation } from '../gateway/gateway-client';
import {
  CreateCommentDocument,
  CreatePostDocument,
  DeleteCommentDocument,
  DeletePostDocument,
  GetCommentDocument,
  GetPostDocument,
  LikePostDocument,
  ListArticleCommentsDocument,
  ListArticlesDocument,
  ListCommentsDocument,
  ListPostsDocument,
  ReplacePostDocument,
  UnlikePostDocument,
  UpdateCommentDocument,
  UpdatePostDocument,
} from './__generated__/operations';

export type { CommentFieldsFragment, PostFieldsFragment } from './__generated__/operations';

export const GetPost = operation(GetPostDocument);
export const ListPosts = operation(ListPostsDocument);
/** A user's articles: the user (404 when absent) and their posts, fetched in parallel by the gateway. */
export const ListArticles = operation(ListArticlesDocument);
export const CreatePost = operation(CreatePostDocument);
export const ReplacePost = operation(ReplacePostDocument);
export const UpdatePost = operation(UpdatePostDocument);
export const DeletePost = operation(DeletePostDocument);
export const LikePost = operation(LikePostDocument);
export const UnlikePost = operation(UnlikePostDocument);

export const ListComments = operation(ListCommentsDocument);
/** An article's comments: the post (to check it is that user's) and its comments. */
export const ListArticleComments = operation(ListArticleCommentsDocument);
export const GetComment = operation(GetCommentDocument);
export const CreateComment = operation(CreateCommentDocument);
export const UpdateComment = operation(UpdateCommentDocument);
export const DeleteComment = operation(DeleteCommentDocument);
