/**
 * Whether tracing is on, from the standard OpenTelemetry variables only (README.md#traces): on when an OTLP endpoint or
 * a traces exporter is configured, off when none is (or OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none). Every
 * other OTEL_* variable (sampler, protocol, headers, resource attributes, ...) is read by the SDK itself.
 */
export interface TracingEnvironment {
  enabled: boolean;
  /** OTEL_SERVICE_NAME given: the SDK uses it; otherwise the process's own name. */
  serviceNameSet: boolean;
  /** Export OTel metrics or logs only when asked for explicitly (Prometheus and stdout are the defaults here). */
  metricsExporterSet: boolean;
  logsExporterSet: boolean;
}

export function tracingEnvironment(env: NodeJS.ProcessEnv = process.env): TracingEnvironment {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const exporter = (env['OTEL_TRACES_EXPORTER'] ?? '').trim().toLowerCase();
  const disabled = (env['OTEL_SDK_DISABLED'] ?? '').trim().toLowerCase() === 'true' || exporter === 'none';
  return {
    enabled:
      !disabled &&
      (exporter !== '' || set('OTEL_EXPORTER_OTLP_ENDPOINT') || set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')),
    serviceNameSet: set('OTEL_SERVICE_NAME'),
    metricsExporterSet: set('OTEL_METRICS_EXPORTER'),
    logsExporterSet: set('OTEL_LOGS_EXPORTER'),
  };
}
