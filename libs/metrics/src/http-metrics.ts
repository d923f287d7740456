/**
 * HTTP server RED metrics for every process: runService tracks each request; the app names its route template
 * (express's matched route in the facade, the GraphQL operation name at the gateway and the subgraphs) with
 * setRouteLabel, else the request counts as "unmatched".
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpDuration, httpInFlight, httpRequests, metricsRecording } from './registry';

const ROUTE = Symbol('metrics.route');
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

type RouteLabel = string | (() => string | undefined);
type Labelled = ServerResponse & { [ROUTE]?: RouteLabel };

/** The route template this response is counted under; a function is called once the response is done. */
export function setRouteLabel(res: ServerResponse, route: RouteLabel): void {
  (res as Labelled)[ROUTE] = route;
}

function routeOf(res: ServerResponse): string {
  const route = (res as Labelled)[ROUTE];
  const value = typeof route === 'function' ? route() : route;
  return value ?? 'unmatched';
}

const statusClass = (status: number): string => (status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other');

/** Counts the request now (in flight) and once its response is done or abandoned. */
export function trackHttpRequest(req: IncomingMessage, res: ServerResponse): void {
  if (!metricsRecording()) return;
  const method = req.method && METHODS.has(req.method) ? req.method : 'other';
  const started = process.hrtime.bigint();
  httpInFlight.inc({ method });
  res.once('close', () => {
    httpInFlight.dec({ method });
    const labels = { method, route: routeOf(res), status_class: statusClass(res.statusCode) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  });
}
