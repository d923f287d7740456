/**
 * OpenTelemetry tracing for a process: the Node SDK with the kept instrumentations (http, undici, express, graphql,
 * mongodb, ioredis), W3C trace context, exported over OTLP, all configured by the standard OTEL_* variables and off
 * unless they configure an exporter.
 *
 * It must start before the code it instruments is loaded. The apps are esbuild bundles whose npm packages stay
 * external (tools/build.mjs), so each `require('express')`, `require('mongodb')`, ... happens at run time, in import
 * order: each main.ts imports its `tracing.ts` first, which calls startTracing, so the instrumentations' require hooks
 * are in place before any other module of the bundle runs. (undici is traced through its diagnostics channels, which
 * also covers the Pools the facade and the gateway use.) The SDK is only required when tracing is on, so a process
 * without OTEL_* settings loads none of it.
 */
import type * as SdkNode from '@opentelemetry/sdk-node';
import type * as Http from '@opentelemetry/instrumentation-http';
import type * as Undici from '@opentelemetry/instrumentation-undici';
import type * as Express from '@opentelemetry/instrumentation-express';
import type * as GraphQL from '@opentelemetry/instrumentation-graphql';
import type * as MongoDB from '@opentelemetry/instrumentation-mongodb';
import type * as IORedis from '@opentelemetry/instrumentation-ioredis';
import { tracingEnvironment } from './environment';

let sdk: SdkNode.NodeSDK | undefined;

/** Probes and scrapes are not requests anyone follows: no span for them. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz']);

export function startTracing(serviceName: string): boolean {
  const settings = tracingEnvironment();
  if (!settings.enabled || sdk) return sdk !== undefined;
  // Synchronous on purpose (not `await import()`): the hooks must be registered before this module returns.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof SdkNode;
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof Http;
  const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici') as typeof Undici;
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express') as typeof Express;
  const { GraphQLInstrumentation } = require('@opentelemetry/instrumentation-graphql') as typeof GraphQL;
  const { MongoDBInstrumentation } = require('@opentelemetry/instrumentation-mongodb') as typeof MongoDB;
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as typeof IORedis;
  /* eslint-enable @typescript-eslint/no-require-imports */
  sdk = new NodeSDK({
    ...(settings.serviceNameSet ? {} : { serviceName }),
    // Prometheus (METRICS_PORT) carries the metrics and stdout the logs, unless OTEL_* asks for OTLP ones as well.
    ...(settings.metricsExporterSet ? {} : { metricReaders: [] }),
    ...(settings.logsExporterSet ? {} : { logRecordProcessors: [] }),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '/').split('?', 1)[0] ?? '/'),
      }),
      new UndiciInstrumentation(),
      new ExpressInstrumentation(),
      // One span per operation phase and per non-trivial resolver, not one per scalar field.
      new GraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true }),
      new MongoDBInstrumentation(),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  return true;
}

/** Flushes and stops the exporter (spans still buffered are sent); nothing to do when tracing is off. */
export async function shutdownTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}
