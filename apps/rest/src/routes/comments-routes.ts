/** Comments under a post: listing, creating, reading, editing and deleting one, via the posts subgraph. */
import { comments as commentResource } from '@platform/contracts';
import { parentScope } from '@platform/listing';
import { OPERATIONS } from '../gateway/gateway-client';
import { listRoute } from './resource-listing';
import { idParams, recordRoutes } from './record-routes';
import { PostIdParams } from './posts-routes';

const { CreateComment, DeleteComment, GetComment, ListComments, UpdateComment } = OPERATIONS;

const comments = recordRoutes({
  resource: commentResource,
  tag: 'comments',
  path: '/posts/:id/comments/:comment_id',
  params: idParams({ id: 'Post', comment_id: 'Comment' }),
  arguments: { comment_id: 'id', id: 'postId' },
  writeRules:
    'Needs `posts:write`. A member may change only comments it wrote (403 otherwise); an admin any. A missing comment, or one ' +
    'on another post, is 404 (checked before authorship). Bounds: body 1..5,000 characters.',
});

export const commentsRoutes = [
  listRoute({
    path: '/posts/:id/comments',
    operationId: 'listComments',
    summary: "List a post's comments",
    tag: 'comments',
    resource: commentResource,
    about: '404 when the post does not exist.',
    plural: 'Comments',
    params: PostIdParams,
    operation: ListComments,
    variables: (params) => ({ postId: params.id }),
    cursorScope: (params) => parentScope('post', params.id),
    connectionOf: (data) => data.comments,
  }),
  comments.create({
    path: '/posts/:id/comments',
    operationId: 'createComment',
    summary: 'Comment on a post',
    description:
      'Needs `posts:write`; the author is the caller. 404 when the post does not exist. Body 1..5,000 characters.',
    params: PostIdParams,
    operation: CreateComment,
  }),
  comments.get({
    operationId: 'getComment',
    summary: 'Retrieve a comment',
    description: '404 unless the comment is on that post.',
    operation: GetComment,
  }),
  comments.write('patch', {
    operationId: 'updateComment',
    summary: 'Edit a comment',
    operation: UpdateComment,
  }),
  comments.delete({ operationId: 'deleteComment', summary: 'Delete a comment', operation: DeleteComment }),
];
