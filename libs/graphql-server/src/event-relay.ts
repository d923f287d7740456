/**
 * How a subgraph's event relay (libs/mongo event-relay.ts) reaches the events service: its internal GraphQL
 * operations, with the internal token and SUBGRAPH_SECRET like every call from one service to another.
 */
import type { EventTransport, PublishedEvent } from '@platform/mongo';
import type { Secrets } from '@platform/auth';
import { InternalGraphQLClient } from '@platform/service';

const RECORD_EVENTS = 'mutation RecordEvents($events: [JSON!]!) { _recordEvents(events: $events) }';
const DELETION_OF = 'query DeletionOf($subject: String!) { _deletionOf(subject: $subject) }';

export function eventsServiceTransport(options: {
  /** The calling service (the internal token's subject). */
  service: string;
  eventsUrl: string;
  jwtSecret: Secrets;
  subgraphSecret: Secrets;
}): EventTransport {
  const client = new InternalGraphQLClient(options.eventsUrl, {
    caller: options.service,
    jwtSecret: options.jwtSecret,
    subgraphSecret: options.subgraphSecret,
    upstream: 'events',
    // Off the request path: a slow events service is waited for rather than sent the same batch again.
    timeoutMs: 30_000,
  });
  return {
    publish: async (events: PublishedEvent[]) => {
      await client.request(RECORD_EVENTS, { events });
    },
    deletionOf: async (subject: string) =>
      (await client.request<{ _deletionOf: number | null }>(DELETION_OF, { subject }))._deletionOf,
    close: () => client.close(),
  };
}
