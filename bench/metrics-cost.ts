/**
 * The CPU the metrics recording adds to one REST read (docs/performance.md, "Observability cost"): everything the three
 * processes on a `GET /items/{id}` record (HTTP RED, rate-limit decision, upstream calls, GraphQL plugin, one MongoDB
 * command through the driver monitoring listeners), with the real libs/metrics code, many times in one process.
 *   npm run build && node dist/tools/bench-metrics-cost.js
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rateLimitDecisions, setRouteLabel, timeUpstream, trackHttpRequest } from '@platform/metrics';
import { monitorMongo } from '@platform/mongo';
import { graphqlMetricsPlugin } from '@platform/service';

const plugin = graphqlMetricsPlugin();
const mongo = new EventEmitter();
monitorMongo(mongo as never);
let requestId = 0;

async function oneRead(): Promise<void> {
  // rest: HTTP RED with its route template, the rate-limit decision, the call to the gateway
  for (let hop = 0; hop < 3; hop += 1) {
    const res = new EventEmitter() as unknown as ServerResponse & { statusCode: number };
    res.statusCode = 200;
    trackHttpRequest({ method: hop === 0 ? 'GET' : 'POST' } as IncomingMessage, res);
    setRouteLabel(res, () => (hop === 0 ? '/items/:item_id' : 'GetItem'));
    if (hop === 0) rateLimitDecisions.inc({ limiter: 'rl:rest', decision: 'allowed' });
    if (hop < 2) timeUpstream(hop === 0 ? 'gateway' : 'items')('ok');
    if (hop > 0) {
      const listener = await plugin.requestDidStart!({ request: { operationName: 'GetItem' } } as never);
      await listener!.didResolveOperation!({ operation: { operation: 'query' } } as never);
      await listener!.willSendResponse!({ response: { body: { kind: 'single', singleResult: { data: {} } } } } as never);
    }
    if (hop === 2) {
      requestId += 1;
      mongo.emit('commandStarted', { requestId, commandName: 'find', command: { find: 'items' } });
      mongo.emit('commandSucceeded', { requestId, commandName: 'find', duration: 0.4 });
    }
    (res as unknown as EventEmitter).emit('close');
  }
}

async function main(): Promise<void> {
  for (let i = 0; i < 20_000; i += 1) await oneRead();
  const n = 200_000;
  const start = process.cpuUsage();
  for (let i = 0; i < n; i += 1) await oneRead();
  const used = process.cpuUsage(start);
  console.log(`metrics recording per REST read (3 hops): ${((used.user + used.system) / n).toFixed(2)} us CPU`);
}
void main();
