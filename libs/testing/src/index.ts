/** The test kit: local infrastructure (FerretDB, redis-server), the whole system as real processes, HTTP helpers. */
export {
  ensureFerretDb,
  ensureRedisServer,
  startFerretDb,
  startRedis,
  makeTempDir,
  FERRETDB_VERSION,
  type RunningInfra,
} from './infrastructure';
export { startProcess, type ManagedProcess } from './managed-process';
export { freePort, waitForHttpOk, waitForPort } from './ports';
export {
  startSystem,
  ownSystemEnv,
  startApp,
  appEnvironment,
  APP_NAMES,
  SUBGRAPH_NAMES,
  DEFAULT_PORTS,
  DEFAULT_METRICS_PORTS,
  type AppName,
  type RunningSystem,
} from './system';
export { stackSubgraphSecret, testStack, type TestStack } from './test-stack';
export { startExtraApp, type ExtraApp } from './extra-apps';
export { http, type HttpOptions, type HttpResponse } from './http-client';
export { ensureChromium, CHROMIUM_PATH, CHROMIUM_ARGS } from './chromium';
export { validateOpenApi31 } from './openapi-validation';
export { lintOpenApi, type SpectralFinding } from './spectral';
export {
  ensurePythonTool,
  ensureSchemathesis,
  runSchemathesis,
  SCHEMATHESIS_VERSION,
  type SchemathesisRun,
} from './schemathesis';
export {
  ensureGoTool,
  goToolPath,
  KUBE_SCORE,
  PROMTOOL,
  type GoTool,
} from './go-tools';
export { parsePrometheusText, promtoolCheckMetrics, samplesOf, type Sample } from './prometheus';
export { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
export { parseOpMsg, startMongoWireRecorder, type MongoWireRecorder, type RecordedCommand } from './mongo-wire-recorder';
export { isWholeCollection, serves, servingIndex, shapeKey, shapesOf, type IndexKey, type QueryShape } from './index-coverage';
export { errorCodes, stackSubgraphUrls, suiteApps, unique } from './suite-apps';
export { expectPreflightAllowed } from './cors';
export { suiteDatabases } from './suite-databases';
