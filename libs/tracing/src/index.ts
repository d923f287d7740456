/** OpenTelemetry tracing, configured by the standard OTEL_* variables (off when none is set). */
export { startTracing, shutdownTracing } from './tracing';
export { tracingEnvironment, type TracingEnvironment } from './environment';
