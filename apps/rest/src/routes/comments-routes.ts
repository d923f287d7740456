/** Comments under a post: listing, creating, reading, editing and deleting one, via the posts subgraph. */
import { CommentCreate, CommentPublic, CommentUpdate, entityIdParam } from '@platform/contracts';
import { notFound } from '@platform/errors';
import { LISTINGS, parentScope, toConnectionVariables } from '@platform/listing';
import { defineRoute } from '../http/route';
import {
  CreateComment,
  DeleteComment,
  GetComment,
  ListComments,
  UpdateComment,
} from '../operations/posts-operations';
import { toCommentPublic } from './resource-representation';
import {
  LIST_STYLES_TEXT,
  listBodySchema,
  listParameters,
  listQueryOf,
  listResponse,
} from './resource-listing';
import { PostIdParams } from './posts-routes';

const CommentParams = PostIdParams.extend({
  comment_id: entityIdParam('Comment id, an integer >= 1 (otherwise 400)'),
});

const WRITE_RULES =
  'Needs `posts:write`. A member may change only comments it wrote (403 otherwise); an admin any. A missing comment, or one ' +
  'on another post, is 404 (checked before authorship). Bounds: body 1..5,000 characters.';

export const commentsRoutes = [
  defineRoute({
    method: 'get',
    path: '/posts/:id/comments',
    operationId: 'listComments',
    summary: "List a post's comments",
    description: `Needs \`posts:read\`; an API key is accepted in place of a bearer token. 404 when the post does not exist. ${LIST_STYLES_TEXT} Filter: \`author_id\` (also \`author_id[eq|lt|gt|in]\`).`,
    tags: ['comments'],
    security: 'bearer-or-api-key',
    scope: 'posts:read',
    params: PostIdParams,
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
        cursorScope: parentScope('post', params.id),
      });
      const data = await gateway.execute(
        ListComments,
        { postId: String(params.id), ...toConnectionVariables(listQuery) },
        credentials,
      );
      return listResponse(request, version, listQuery, data.comments, toCommentPublic);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/posts/:id/comments',
    operationId: 'createComment',
    summary: 'Comment on a post',
    description:
      'Needs `posts:write`; the author is the caller. 404 when the post does not exist. Body 1..5,000 characters.',
    tags: ['comments'],
    security: 'bearer',
    scope: 'posts:write',
    params: PostIdParams,
    body: CommentCreate,
    responses: { 201: { description: 'The created comment', schema: CommentPublic } },
    handler: async ({ params, body, gateway, credentials }) => {
      const data = await gateway.execute(
        CreateComment,
        { postId: String(params.id), input: body },
        credentials,
      );
      return { status: 201, body: toCommentPublic(data.createComment) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/posts/:id/comments/:comment_id',
    operationId: 'getComment',
    summary: 'Retrieve a comment',
    description:
      'Needs `posts:read`; an API key is accepted in place of a bearer token. 404 unless the comment is on that post.',
    tags: ['comments'],
    security: 'bearer-or-api-key',
    scope: 'posts:read',
    params: CommentParams,
    responses: { 200: { description: 'The comment', schema: CommentPublic } },
    handler: async ({ params, gateway, credentials }) => {
      const data = await gateway.execute(
        GetComment,
        { id: String(params.comment_id), postId: String(params.id) },
        credentials,
      );
      if (!data.comment) throw notFound('Comment', params.comment_id);
      return { status: 200, body: toCommentPublic(data.comment) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/posts/:id/comments/:comment_id',
    operationId: 'updateComment',
    summary: 'Edit a comment',
    description: WRITE_RULES,
    tags: ['comments'],
    security: 'bearer',
    scope: 'posts:write',
    params: CommentParams,
    body: CommentUpdate,
    responses: { 200: { description: 'The comment after the update', schema: CommentPublic } },
    handler: async ({ params, body, gateway, credentials }) => {
      const data = await gateway.execute(
        UpdateComment,
        { id: String(params.comment_id), postId: String(params.id), input: body },
        credentials,
      );
      return { status: 200, body: toCommentPublic(data.updateComment) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/posts/:id/comments/:comment_id',
    operationId: 'deleteComment',
    summary: 'Delete a comment',
    description: WRITE_RULES,
    tags: ['comments'],
    security: 'bearer',
    scope: 'posts:write',
    params: CommentParams,
    responses: { 204: { description: 'Deleted; empty body' } },
    handler: async ({ params, gateway, credentials }) => {
      await gateway.execute(
        DeleteComment,
        { id: String(params.comment_id), postId: String(params.id) },
        credentials,
      );
      return { status: 204 };
    },
  }),
];
