/**
 * Post and comment schemas (blog resources): PostCreate/PostReplace/PostUpdate, PostPublic, CommentCreate/CommentUpdate,
 * CommentPublic. Bounds: title 1..200 characters, body 1..20,000, comment body 1..5,000 (none may be only whitespace).
 */
import { z } from 'zod';
import { strictBody } from './strict-body';
import { nonBlankText } from './text';
import { ENTITY_ID_MAX } from './entity-id';

export const POST_TITLE_MAX = 200;
export const POST_BODY_MAX = 20_000;
export const COMMENT_BODY_MAX = 5_000;

const bounded = (max: number) =>
  nonBlankText()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .describe(`1 to ${max} characters, not only whitespace`);

const title = bounded(POST_TITLE_MAX);
const body = bounded(POST_BODY_MAX);
const commentBody = bounded(COMMENT_BODY_MAX);

export const PostCreate = strictBody('PostCreate', { title, body }, {
  description: 'A new post; the author is the caller.',
  example: { title: 'Hello', body: 'First post.' },
});
export type PostCreateInput = z.infer<typeof PostCreate>;

export const PostReplace = strictBody('PostReplace', { title, body }, {
  description: 'Full update of a post: title and body are required.',
  example: { title: 'Hello again', body: 'Edited.' },
});

export const PostUpdate = strictBody('PostUpdate', { title: title.optional(), body: body.optional() }, {
  description: 'Partial update of a post: only the given fields change.',
  example: { title: 'Better title' },
});
export type PostUpdateInput = z.infer<typeof PostUpdate>;

const timestamp = z.string().max(32).meta({ format: 'date-time' }).describe('ISO 8601 timestamp (UTC)');
const Id = z.number().int().min(1).max(ENTITY_ID_MAX);

export const PostPublic = z
  .object({
    id: Id,
    author_id: Id,
    title: z.string().max(POST_TITLE_MAX),
    body: z.string().max(POST_BODY_MAX),
    like_count: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({
    id: 'Post',
    description: 'A post. like_count counts distinct users who like it.',
    example: {
      id: 4,
      author_id: 3,
      title: 'Hello',
      body: 'First post.',
      like_count: 2,
      created_at: '2025-01-01T10:00:00.000Z',
      updated_at: '2025-01-01T10:00:00.000Z',
    },
  });

export const CommentCreate = strictBody('CommentCreate', { body: commentBody }, {
  description: 'A new comment on a post; the author is the caller.',
  example: { body: 'Nice post!' },
});
export type CommentCreateInput = z.infer<typeof CommentCreate>;

export const CommentUpdate = strictBody('CommentUpdate', { body: commentBody.optional() }, {
  description: 'Partial update of a comment.',
  example: { body: 'Nice post, really!' },
});
export type CommentUpdateInput = z.infer<typeof CommentUpdate>;

export const CommentPublic = z
  .object({
    id: Id,
    post_id: Id,
    author_id: Id,
    body: z.string().max(COMMENT_BODY_MAX),
    created_at: timestamp,
  })
  .meta({
    id: 'Comment',
    description: 'A comment on a post.',
    example: { id: 9, post_id: 4, author_id: 5, body: 'Nice post!', created_at: '2025-01-01T11:00:00.000Z' },
  });
