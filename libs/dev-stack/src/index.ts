/**
 * The development stack: what runs the system on a developer's or CI machine, for `npm start` (tools/launcher), the
 * bench and the tests alike: FerretDB on PostgreSQL and redis-server provisioned and started, Chromium and the Go and Python tools
 * the checks run, and the six processes from dist/ (startSystem). No production code imports it (eslint.config.mjs).
 */
export {
  ensureFerretDb,
  ensureRedisServer,
  startFerretDb,
  startRedis,
  makeTempDir,
  FERRETDB_VERSION,
  type FerretDbOptions,
  type RunningInfra,
} from './infrastructure';
export {
  createPostgresDatabase,
  ensurePostgres,
  startPostgres,
  EMBEDDED_DRIVER_POOL,
  FERRETDB_POOL_MAX_CONNS,
  POSTGRES_MAX_CONNECTIONS,
  type RunningPostgres,
} from './postgres';
export { startProcess, type ManagedProcess } from './managed-process';
export { freePort, waitForHttpOk, waitForPort } from './ports';
export {
  startSystem,
  ownSystemEnv,
  productionMode,
  generatedSecret,
  startApp,
  withLogEnd,
  appEnvironment,
  APP_NAMES,
  SUBGRAPH_NAMES,
  DEFAULT_PORTS,
  DEFAULT_METRICS_PORTS,
  type AppName,
  type RunningSystem,
} from './system';
export { ensureChromium, CHROMIUM_PATH, CHROMIUM_ARGS } from './chromium';
export { loopbackTls, type LoopbackTls } from './loopback-tls';
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
export { repositoryRoot } from './repository-root';
export {
  containerSizing,
  heapHeadroomBytes,
  heapLimitMiB,
  manifestSizing,
  parseMemoryQuantity,
  type ContainerSizing,
} from './k8s-sizing';
