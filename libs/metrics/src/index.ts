/** Prometheus metrics shared by every process: the series (registry.ts) and how each layer records them. */
export * from './registry';
export { LabelBudget, operationNames } from './label-budget';
export { setRouteLabel, trackHttpRequest } from './http-metrics';
export { isTimeout, timeUpstream, type UpstreamOutcome } from './upstream-metrics';
