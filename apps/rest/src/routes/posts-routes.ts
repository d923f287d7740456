/** The posts resource: CRUD, listing and the like action, translated into gateway operations on the posts subgraph. */
import { posts as postResource, representation, restSchemas } from '@platform/contracts';
import { defineRoute } from '../http/route';
import { OPERATIONS, type Operation } from '../gateway/gateway-client';
import type { PostFieldsFragment } from '../operations/__generated__/operations';
import { listRoute } from './resource-listing';
import { idParams, recordRoutes } from './record-routes';

const {
  CreatePost,
  DeletePost,
  GetPost,
  LikePost,
  ListPosts,
  ReplacePost,
  UnlikePost,
  UpdatePost,
} = OPERATIONS;

export const PostIdParams = idParams({ id: 'Post' });
const toPostPublic = representation(postResource);

const posts = recordRoutes<PostFieldsFragment, typeof PostIdParams>({
  resource: postResource,
  tag: 'posts',
  path: '/posts/:id',
  params: PostIdParams,
  arguments: { id: 'id' },
  // Likes are counted, not written to the post: the tag follows the count, If-Match only the post's own version.
  derived: (post) => `l${post.likeCount}`,
  writeRules:
    'Needs `posts:write`. A member may change only posts it wrote (403 otherwise); an admin any. A missing post is 404 ' +
    '(checked before authorship). Bounds: title 1..200 characters, body 1..20,000.',
});

/** Liking and unliking: idempotent actions on the post, answering it with its like count (or nothing). */
const likeRoute = (
  method: 'post' | 'delete',
  text: { operationId: string; summary: string; description: string; answer: string },
  operation: Operation<Record<string, PostFieldsFragment>, { id: string | number }>,
) =>
  defineRoute({
    method,
    path: '/posts/:id/like',
    operationId: text.operationId,
    summary: text.summary,
    description: `Needs \`posts:write\`. ${text.description}`,
    tags: ['posts'],
    security: 'bearer',
    scope: 'posts:write',
    params: PostIdParams,
    responses:
      method === 'post'
        ? { 200: { description: text.answer, schema: restSchemas(postResource).public } }
        : { 204: { description: text.answer } },
    handler: async ({ params, gateway, credentials }) => {
      const data = await gateway.execute(operation, { id: params.id }, credentials);
      return method === 'post' ? { status: 200, body: toPostPublic(Object.values(data)[0]!) } : { status: 204 };
    },
  });

export const postsRoutes = [
  listRoute({
    path: '/posts',
    operationId: 'listPosts',
    summary: 'List posts',
    tag: 'posts',
    resource: postResource,
    plural: 'Posts',
    operation: ListPosts,
    connectionOf: (data) => data.posts,
  }),
  posts.create({
    path: '/posts',
    operationId: 'createPost',
    summary: 'Create a post',
    description: 'Needs `posts:write`; the author is the caller. Bounds: title 1..200 characters, body 1..20,000.',
    operation: CreatePost,
  }),
  posts.get({ operationId: 'getPost', summary: 'Retrieve a post', operation: GetPost }),
  posts.write('put', {
    operationId: 'replacePost',
    summary: 'Replace a post',
    description: 'Full update: title and body are required.',
    operation: ReplacePost,
  }),
  posts.write('patch', {
    operationId: 'updatePost',
    summary: 'Modify a post',
    description: 'Partial update: only the given fields change.',
    operation: UpdatePost,
  }),
  posts.delete({
    operationId: 'deletePost',
    summary: 'Delete a post with its comments and likes',
    operation: DeletePost,
    deleted: 'Deleted, with its comments and likes; empty body',
  }),
  likeRoute(
    'post',
    {
      operationId: 'likePost',
      summary: 'Like a post',
      description: 'One like per user per post: liking again changes nothing (still 200).',
      answer: 'The post with its like_count',
    },
    LikePost,
  ),
  likeRoute(
    'delete',
    {
      operationId: 'unlikePost',
      summary: 'Remove your like from a post',
      description: 'Idempotent: without a like of yours nothing changes (still 204).',
      answer: 'The like is gone; empty body',
    },
    UnlikePost,
  ),
];
