/** A user's articles (the posts that user wrote) and an article's comments, via the users and posts subgraphs. */
import { z } from 'zod';
import { CommentPublic, entityIdParam, PostPublic } from '@platform/contracts';
import { notFound, validationError } from '@platform/errors';
import { LISTINGS, parentScope, toConnectionVariables } from '@platform/listing';
import { defineRoute } from '../http/route';
import { ListArticleComments, ListArticles } from '../operations/posts-operations';
import { toCommentPublic, toPostPublic } from './resource-representation';
import {
  LIST_STYLES_TEXT,
  listBodySchema,
  listParameters,
  listQueryOf,
  listResponse,
} from './resource-listing';

/** Posts' listing parameters without author_id, which the path fixes. */
const ARTICLE_PARAMETERS = listParameters({
  ...LISTINGS.posts,
  fields: LISTINGS.posts.fields.filter((field) => field.rest !== 'author_id'),
});

const userId = entityIdParam('User id, an integer >= 1 (otherwise 400)');
const UserParams = z.object({ id: userId });
const ArticleParams = z.object({
  id: userId,
  article_id: entityIdParam('Post id, an integer >= 1 (otherwise 400)'),
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
  defineRoute({
    method: 'get',
    path: '/users/:id/articles',
    operationId: 'listUserArticles',
    summary: "List a user's articles",
    description: `The posts the user wrote. Needs \`posts:read\` (and \`users:read\` for the user lookup); an API key is accepted. 404 when the user does not exist. ${LIST_STYLES_TEXT} Filter: \`title\` (the author is given by the path; an \`author_id\` parameter is refused).`,
    tags: ['posts'],
    security: 'bearer-or-api-key',
    scope: 'posts:read',
    params: UserParams,
    query: ARTICLE_PARAMETERS,
    listing: true,
    responses: {
      200: {
        description: 'Articles: an array by default, or an envelope',
        schema: listBodySchema(PostPublic),
      },
    },
    handler: async ({ params, request, gateway, credentials, env, version }) => {
      const listQuery = listQueryOf(withAuthor(request.query, params.id), LISTINGS.posts, env);
      const data = await gateway.execute(
        ListArticles,
        { userId: String(params.id), ...toConnectionVariables(listQuery) },
        credentials,
      );
      if (!data.user) throw notFound('User', params.id);
      return listResponse(request, version, listQuery, data.posts, toPostPublic);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/users/:id/articles/:article_id/comments',
    operationId: 'listUserArticleComments',
    summary: "List the comments of a user's article",
    description: `Needs \`posts:read\`; an API key is accepted. 404 when the article does not exist or was not written by that user. ${LIST_STYLES_TEXT} Filter: \`author_id\`.`,
    tags: ['comments'],
    security: 'bearer-or-api-key',
    scope: 'posts:read',
    params: ArticleParams,
    query: listParameters(LISTINGS.comments),
    listing: true,
    responses: {
      200: {
        description: 'Comments: an array by default, or an envelope',
        schema: listBodySchema(CommentPublic),
      },
    },
    handler: async ({ params, request, gateway, credentials, env, version }) => {
      const listQuery = listQueryOf(request.query, LISTINGS.comments, env, {
        cursorScope: parentScope('post', params.article_id),
      });
      const data = await gateway.execute(
        ListArticleComments,
        { postId: String(params.article_id), ...toConnectionVariables(listQuery) },
        credentials,
      );
      if (!data.post || Number(data.post.authorId) !== params.id)
        throw notFound('Article', params.article_id);
      return listResponse(request, version, listQuery, data.comments, toCommentPublic);
    },
  }),
];
