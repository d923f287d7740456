/** The posts resource: CRUD, listing and the like action, translated into gateway operations on the posts subgraph. */
import { z } from 'zod';
import { entityIdParam, PostCreate, PostPublic, PostReplace, PostUpdate } from '@platform/contracts';
import { notFound } from '@platform/errors';
import { LISTINGS, toConnectionVariables } from '@platform/listing';
import { defineRoute } from '../http/route';
import {
  CreatePost,
  DeletePost,
  GetPost,
  LikePost,
  ListPosts,
  ReplacePost,
  UnlikePost,
  UpdatePost,
} from '../operations/posts-operations';
import { toPostPublic } from './resource-representation';
import {
  LIST_STYLES_TEXT,
  listBodySchema,
  listParameters,
  listQueryOf,
  listResponse,
} from './resource-listing';

export const PostIdParams = z.object({ id: entityIdParam('Post id, an integer >= 1 (otherwise 400)') });

const WRITE_RULES =
  'Needs `posts:write`. A member may change only posts it wrote (403 otherwise); an admin any. A missing post is 404 ' +
  '(checked before authorship). Bounds: title 1..200 characters, body 1..20,000.';

export const postsRoutes = [
  defineRoute({
    method: 'get',
    path: '/posts',
    operationId: 'listPosts',
    summary: 'List posts',
    description: `Needs \`posts:read\`; an API key is accepted in place of a bearer token. ${LIST_STYLES_TEXT} Filters: \`author_id\`, \`title\`, each also as \`field[eq|lt|gt|in]\`.`,
    tags: ['posts'],
    security: 'bearer-or-api-key',
    scope: 'posts:read',
    query: listParameters(LISTINGS.posts),
    listing: true,
    responses: {
      200: { description: 'Posts: an array by default, or an envelope', schema: listBodySchema(PostPublic) },
    },
    handler: async ({ request, gateway, credentials, env, version }) => {
      const listQuery = listQueryOf(request.query, LISTINGS.posts, env);
      const data = await gateway.execute(ListPosts, { ...toConnectionVariables(listQuery) }, credentials);
      return listResponse(request, version, listQuery, data.posts, toPostPublic);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/posts',
    operationId: 'createPost',
    summary: 'Create a post',
    description:
      'Needs `posts:write`; the author is the caller. Bounds: title 1..200 characters, body 1..20,000.',
    tags: ['posts'],
    security: 'bearer',
    scope: 'posts:write',
    body: PostCreate,
    responses: { 201: { description: 'The created post', schema: PostPublic } },
    handler: async ({ body, gateway, credentials }) => {
      const data = await gateway.execute(CreatePost, { input: body }, credentials);
      return { status: 201, body: toPostPublic(data.createPost) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/posts/:id',
    operationId: 'getPost',
    summary: 'Retrieve a post',
    description: 'Needs `posts:read`; an API key is accepted in place of a bearer token.',
    tags: ['posts'],
    security: 'bearer-or-api-key',
    scope: 'posts:read',
    params: PostIdParams,
    responses: { 200: { description: 'The post', schema: PostPublic } },
    handler: async ({ params, gateway, credentials }) => {
      const data = await gateway.execute(GetPost, { id: String(params.id) }, credentials);
      if (!data.post) throw notFound('Post', params.id);
      return { status: 200, body: toPostPublic(data.post) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/posts/:id',
    operationId: 'replacePost',
    summary: 'Replace a post',
    description: `${WRITE_RULES} Full update: title and body are required.`,
    tags: ['posts'],
    security: 'bearer',
    scope: 'posts:write',
    params: PostIdParams,
    body: PostReplace,
    responses: { 200: { description: 'The post after the update', schema: PostPublic } },
    handler: async ({ params, body, gateway, credentials }) => {
      const data = await gateway.execute(ReplacePost, { id: String(params.id), input: body }, credentials);
      return { status: 200, body: toPostPublic(data.replacePost) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/posts/:id',
    operationId: 'updatePost',
    summary: 'Modify a post',
    description: `${WRITE_RULES} Partial update: only the given fields change.`,
    tags: ['posts'],
    security: 'bearer',
    scope: 'posts:write',
    params: PostIdParams,
    body: PostUpdate,
    responses: { 200: { description: 'The post after the update', schema: PostPublic } },
    handler: async ({ params, body, gateway, credentials }) => {
      const data = await gateway.execute(UpdatePost, { id: String(params.id), input: body }, credentials);
      return { status: 200, body: toPostPublic(data.updatePost) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/posts/:id',
    operationId: 'deletePost',
    summary: 'Delete a post with its comments and likes',
    description: WRITE_RULES,
    tags: ['posts'],
    security: 'bearer',
    scope: 'posts:write',
    params: PostIdParams,
    responses: { 204: { description: 'Deleted, with its comments and likes; empty body' } },
    handler: async ({ params, gateway, credentials }) => {
      await gateway.execute(DeletePost, { id: String(params.id) }, credentials);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/posts/:id/like',
    operationId: 'likePost',
    summary: 'Like a post',
    description: 'Needs `posts:write`. One like per user per post: liking again changes nothing (still 200).',
    tags: ['posts'],
    security: 'bearer',
    scope: 'posts:write',
    params: PostIdParams,
    responses: { 200: { description: 'The post with its like_count', schema: PostPublic } },
    handler: async ({ params, gateway, credentials }) => {
      const data = await gateway.execute(LikePost, { id: String(params.id) }, credentials);
      return { status: 200, body: toPostPublic(data.likePost) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/posts/:id/like',
    operationId: 'unlikePost',
    summary: 'Remove your like from a post',
    description: 'Needs `posts:write`. Idempotent: without a like of yours nothing changes (still 204).',
    tags: ['posts'],
    security: 'bearer',
    scope: 'posts:write',
    params: PostIdParams,
    responses: { 204: { description: 'The like is gone; empty body' } },
    handler: async ({ params, gateway, credentials }) => {
      await gateway.execute(UnlikePost, { id: String(params.id) }, credentials);
      return { status: 204 };
    },
  }),
];
