/**
 * MongoDB metrics from the driver's own monitoring events (no wrapper around queries): command durations by command,
 * collection and outcome (needs the client created with `monitorCommands: true`), and the connection pool's size, use
 * and check-out waits (CMAP events, always emitted).
 */
import type {
  CommandFailedEvent,
  CommandStartedEvent,
  CommandSucceededEvent,
  ConnectionCheckedOutEvent,
  ConnectionCheckOutFailedEvent,
  MongoClient,
} from 'mongodb';
import { mongoCommandDuration, mongoPoolCheckoutFailures, mongoPoolConnections, mongoPoolWait } from '@platform/metrics';

/** Handshake and authentication commands are the driver's, not the application's. */
const IGNORED = new Set(['hello', 'ismaster', 'isMaster', 'saslStart', 'saslContinue', 'endSessions']);

function collectionOf(event: CommandStartedEvent): string {
  const target = event.command[event.commandName] as unknown;
  if (typeof target === 'string') return target;
  const getMore = event.command['collection'] as unknown;
  return typeof getMore === 'string' ? getMore : 'none';
}

export function monitorMongo(client: MongoClient): void {
  // requestId -> collection, from the started event to its succeeded/failed event (which do not carry the command).
  const pending = new Map<number, string>();
  client.on('commandStarted', (event: CommandStartedEvent) => {
    if (!IGNORED.has(event.commandName)) pending.set(event.requestId, collectionOf(event));
  });
  const finished = (event: CommandSucceededEvent | CommandFailedEvent, outcome: 'ok' | 'error') => {
    const collection = pending.get(event.requestId);
    if (collection === undefined) return;
    pending.delete(event.requestId);
    mongoCommandDuration.observe({ command: event.commandName, collection, outcome }, event.duration / 1000);
  };
  client.on('commandSucceeded', (event: CommandSucceededEvent) => finished(event, 'ok'));
  client.on('commandFailed', (event: CommandFailedEvent) => finished(event, 'error'));

  mongoPoolConnections.set({ state: 'open' }, 0);
  mongoPoolConnections.set({ state: 'in_use' }, 0);
  client.on('connectionCreated', () => mongoPoolConnections.inc({ state: 'open' }));
  client.on('connectionClosed', () => mongoPoolConnections.dec({ state: 'open' }));
  client.on('connectionCheckedOut', (event: ConnectionCheckedOutEvent) => {
    mongoPoolConnections.inc({ state: 'in_use' });
    mongoPoolWait.observe(event.durationMS / 1000);
  });
  client.on('connectionCheckedIn', () => mongoPoolConnections.dec({ state: 'in_use' }));
  client.on('connectionCheckOutFailed', (event: ConnectionCheckOutFailedEvent) => {
    mongoPoolCheckoutFailures.inc({ reason: String(event.reason) });
    mongoPoolWait.observe(event.durationMS / 1000);
  });
}
