/** Entry point of the posts subgraph process. */
// First: tracing hooks the modules the imports below load (libs/tracing/src/tracing.ts).
import './tracing';
import { runSubgraph } from '@platform/graphql-server';
import { loadPostsEnvironment } from './environment';
import { createPostsApp } from './app';
import { postIndexes } from './data-access/post-repository';
import { commentIndexes } from './data-access/comment-repository';
import { likeIndexes } from './data-access/like-repository';

runSubgraph({
  name: 'posts',
  loadEnvironment: loadPostsEnvironment,
  indexes: [...postIndexes, ...commentIndexes, ...likeIndexes],
  monitorCommands: true,
  createApp: ({ deps }) => createPostsApp(deps),
});
