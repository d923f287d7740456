/** Entry point of the items subgraph process. */
// First: tracing hooks the modules the imports below load (libs/tracing/src/tracing.ts).
import './tracing';
import { runSubgraph } from '@platform/graphql-server';
import { loadItemsEnvironment } from './environment';
import { createItemsApp } from './app';
import { itemIndexes } from './data-access/item-repository';

runSubgraph({
  name: 'items',
  loadEnvironment: loadItemsEnvironment,
  indexes: itemIndexes,
  monitorCommands: true,
  createApp: ({ deps }) => createItemsApp(deps),
});
