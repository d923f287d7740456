/** The development stack: local infrastructure (FerretDB, redis-server), tools, the whole system as real processes. */
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
export { ensureChromium, CHROMIUM_PATH, CHROMIUM_ARGS } from './chromium';
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
