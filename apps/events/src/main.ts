/** Entry point of the events subgraph process: the feed, the audit trail and webhooks (ADR 0023, ADR 0024). */
// First: tracing hooks the modules the imports below load (libs/tracing/src/tracing.ts).
import './tracing';
import { runSubgraph } from '@platform/graphql-server';
import { loadEventsEnvironment } from './environment';
import { DELIVERY_INDEXES, EVENT_INDEXES } from '@platform/webhooks';
import { createEventsApp, type EventsApp } from './app';

runSubgraph({
  name: 'events',
  loadEnvironment: loadEventsEnvironment,
  indexes: [...EVENT_INDEXES, ...DELIVERY_INDEXES],
  createApp: ({ deps, env }) => createEventsApp(deps, env),
  close: (app: EventsApp) => app.close(),
});
