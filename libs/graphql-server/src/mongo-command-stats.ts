/**
 * Development diagnostics: counts the MongoDB commands each GraphQL request sends (driver command monitoring, scoped to
 * the request with AsyncLocalStorage) and reports them as `extensions.mongoCommands` in that request's response, so
 * tests can prove batching (one `$in` find per entity batch) against the real database. Never enabled in production.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { CommandStartedEvent, MongoClient } from 'mongodb';

interface RequestCommands {
  counts: Record<string, number>;
}

/** Commands the driver sends on its own (handshakes, pings, session ends) are not the request's queries. */
const IGNORED = new Set([
  'hello',
  'ismaster',
  'isMaster',
  'ping',
  'endSessions',
  'saslStart',
  'saslContinue',
]);

export class MongoCommandStats {
  private readonly storage = new AsyncLocalStorage<RequestCommands>();

  /** The client must have been created with `monitorCommands: true`. */
  constructor(client: MongoClient) {
    client.on('commandStarted', (event: CommandStartedEvent) => {
      const store = this.storage.getStore();
      if (!store || IGNORED.has(event.commandName)) return;
      store.counts[event.commandName] = (store.counts[event.commandName] ?? 0) + 1;
    });
  }

  /** Runs each HTTP request in its own counting scope. */
  wrap(
    handler: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => this.storage.run({ counts: {} }, () => handler(req, res));
  }

  /** Adds `extensions.mongoCommands: { find: 1, ... }` to every single-result response. */
  plugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
    const storage = this.storage;
    return {
      async requestDidStart() {
        return {
          async willSendResponse({ response }) {
            const store = storage.getStore();
            if (!store || response.body.kind !== 'single') return;
            const result = response.body.singleResult;
            result.extensions = { ...result.extensions, mongoCommands: { ...store.counts } };
          },
        };
      },
    };
  }
}
