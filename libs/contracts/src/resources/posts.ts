/**
 * Posts and their comments (the blog resources): title 1..200 characters, body 1..20,000, comment body 1..5,000, none
 * only whitespace. A post's like count counts distinct users who like it; deleting a post deletes its comments and likes.
 */
import { z } from 'zod';
import { nonBlankText } from '../text';
import { datetime, id, integer, reference, resource, text, version } from './resource';

export const POST_TITLE_MAX = 200;
export const POST_BODY_MAX = 20_000;
export const COMMENT_BODY_MAX = 5_000;

const bounded = (max: number) =>
  nonBlankText()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .describe(`1 to ${max} characters, not only whitespace`);

const timestamp = z.string().max(32).meta({ format: 'date-time' }).describe('ISO 8601 timestamp (UTC)');
const VERSION =
  'Write counter: every change adds 1 (the REST ETag); pass it as expectedVersion to change only this version.';
const AUTHOR = { field: 'author', target: 'User', description: 'The author (resolved by the users subgraph).' };

export const posts = resource({
  name: 'posts',
  type: 'Post',
  subgraph: 'posts',
  collection: 'posts',
  plural: 'posts',
  description:
    'A blog post. Reads need scope posts:read; writes posts:write, and a member edits or deletes only its own posts.\n' +
    'Deleting a post deletes its comments and likes.',
  scopes: { read: 'posts:read', write: 'posts:write' },
  owner: 'authorId',
  fields: {
    id: id("The post's id (a positive integer, as in the REST paths)."),
    authorId: reference({
      description: "The author's user id.",
      listed: { description: "On the author's id." },
      relation: {
        ...AUTHOR,
        inverse: {
          field: 'posts',
          description: "The user's posts in id order (scope posts:read); first is 1..100.",
          typeDescription: "The users subgraph's User, extended with the posts each user wrote (their articles).",
        },
      },
    }),
    title: text({
      description: '1 to 200 characters.',
      input: bounded(POST_TITLE_MAX),
      output: z.string().max(POST_TITLE_MAX),
      write: { create: 'required', replace: 'required', update: 'optional' },
      listed: { description: 'On the title.' },
    }),
    body: text({
      description: '1 to 20,000 characters.',
      input: bounded(POST_BODY_MAX),
      output: z.string().max(POST_BODY_MAX),
      write: { create: 'required', replace: 'required', update: 'optional' },
    }),
    likeCount: integer({
      description: 'How many distinct users like the post.',
      stored: null,
      output: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    }),
    createdAt: datetime({ description: 'When it was created.', output: timestamp }),
    updatedAt: datetime({ description: 'When it was last changed (createdAt until then).', output: timestamp }),
    version: version(VERSION),
  },
  children: [
    { field: 'comments', type: 'Comment', description: "The post's comments in id order; first is 1..100.", after: 'updatedAt' },
  ],
  inputs: {
    create: 'A new post, or every field of one (a full update).',
    update: 'The fields of a post to change (a partial update); omitted fields stay.',
  },
  rest: {
    public: {
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
    },
    create: {
      id: 'PostCreate',
      description: 'A new post; the author is the caller.',
      example: { title: 'Hello', body: 'First post.' },
    },
    replace: {
      id: 'PostReplace',
      description: 'Full update of a post: title and body are required.',
      example: { title: 'Hello again', body: 'Edited.' },
    },
    update: {
      id: 'PostUpdate',
      description: 'Partial update of a post: only the given fields change.',
      example: { title: 'Better title' },
    },
  },
});

export const comments = resource({
  name: 'comments',
  type: 'Comment',
  subgraph: 'posts',
  collection: 'comments',
  plural: 'comments',
  description: 'A comment on a post (posts:read to read, posts:write to write; authors edit and delete their own).',
  scopes: { read: 'posts:read', write: 'posts:write' },
  owner: 'authorId',
  parent: 'postId',
  fields: {
    id: id("The comment's id (a positive integer, as in the REST paths)."),
    postId: reference({
      description: 'The id of the post it is on.',
      relation: { field: 'post', target: 'Post', description: 'The post it is on; null once the post is gone.' },
    }),
    authorId: reference({
      description: "The author's user id.",
      listed: { description: "On the author's id." },
      relation: AUTHOR,
    }),
    body: text({
      description: '1 to 5,000 characters.',
      input: bounded(COMMENT_BODY_MAX),
      output: z.string().max(COMMENT_BODY_MAX),
      write: { create: 'required', update: 'optional' },
    }),
    createdAt: datetime({ description: 'When it was created.', output: timestamp }),
    updatedAt: datetime({ description: 'When it was last changed (createdAt until then).', rest: null }),
    version: version(VERSION),
  },
  inputs: { create: 'A new comment.', update: 'The fields of a comment to change.' },
  rest: {
    public: {
      id: 'Comment',
      description: 'A comment on a post.',
      example: { id: 9, post_id: 4, author_id: 5, body: 'Nice post!', created_at: '2025-01-01T11:00:00.000Z' },
    },
    create: {
      id: 'CommentCreate',
      description: 'A new comment on a post; the author is the caller.',
      example: { body: 'Nice post!' },
    },
    update: {
      id: 'CommentUpdate',
      description: 'Partial update of a comment.',
      example: { body: 'Nice post, really!' },
    },
  },
});
