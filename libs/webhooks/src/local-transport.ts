/** The event relay's transport inside the events service's own processes: straight into its store and fan-out. */
import type { EventTransport } from '@platform/mongo';
import type { EventFanOut } from './fan-out';
import type { EventStore } from './event-store';

export const localTransport = (fanOut: EventFanOut, store: EventStore): EventTransport => ({
  publish: async (events) => {
    await fanOut.record(events);
  },
  deletionOf: (subject) => store.deletionOf(subject),
});
