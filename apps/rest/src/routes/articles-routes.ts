/** A user's articles (the posts that user wrote) and an article's comments, via the users and posts subgraphs. */
import { comments, posts } from '@platform/contracts';
import { notFound, validationError } from '@platform/errors';
import { LISTINGS, parentScope } from '@platform/listing';
import { OPERATIONS } from '../gateway/gateway-client';
import { listParameters, listRoute } from './resource-listing';
import { idParams } from './record-routes';

const { ListArticleComments, ListArticles } = OPERATIONS;

/** Posts' listing parameters without author_id, which the path fixes. */
const ARTICLE_PARAMETERS = listParameters({
  ...LISTINGS.posts,
  fields: LISTINGS.posts.fields.filter((field) => field.rest !== 'author_id'),
});

/**
 * The path names the author: it becomes the `author_id` filter before parsing, so the REST side and the subgraph see
 * (and bind cursors to) the same filter. An `author_id` filter of the client's own would be redundant or empty: refused.
 */
function withAuthor(query: unknown, authorId: number): Record<string, unknown> {
  const given = { ...(query as Record<string, unknown>) };
  const clash = Object.keys(given).find((key) => key === 'author_id' || key.startsWith('author_id['));
  if (clash)
    throw validationError([{ field: clash, message: 'is given by the path (/users/{id}/articles)' }]);
  return { ...given, 'author_id[eq]': String(authorId) };
}

export const articlesRoutes = [
  listRoute({
    path: '/users/:id/articles',
    operationId: 'listUserArticles',
    summary: "List a user's articles",
    tag: 'posts',
    resource: posts,
    about: 'The posts the user wrote. 404 when the user does not exist.',
    filters: 'Filter: `title` (the author is given by the path; an `author_id` parameter is refused).',
    plural: 'Articles',
    query: ARTICLE_PARAMETERS,
    params: idParams({ id: 'User' }),
    operation: ListArticles,
    rawQuery: (query, params) => withAuthor(query, params.id),
    variables: (params) => ({ userId: params.id }),
    connectionOf: (data, params) => {
      if (!data.articleAuthor) throw notFound('User', params.id);
      return data.posts;
    },
  }),
  listRoute({
    path: '/users/:id/articles/:article_id/comments',
    operationId: 'listUserArticleComments',
    summary: "List the comments of a user's article",
    tag: 'comments',
    resource: comments,
    about: '404 when the article does not exist or was not written by that user.',
    filters: 'Filter: `author_id`.',
    plural: 'Comments',
    params: idParams({ id: 'User', article_id: 'Post' }),
    operation: ListArticleComments,
    variables: (params) => ({ postId: params.article_id }),
    cursorScope: (params) => parentScope('post', params.article_id),
    connectionOf: (data, params) => {
      if (!data.post || Number(data.post.authorId) !== params.id) throw notFound('Article', params.article_id);
      return data.comments;
    },
  }),
];
