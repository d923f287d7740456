/** Calls from this process to another one (gateway -> subgraph, facade -> gateway): duration and outcome per upstream. */
import { metricsRecording, upstreamDuration, upstreamRequests } from './registry';

export type UpstreamOutcome = 'ok' | 'error' | 'timeout' | 'unavailable';

/** Starts timing a call; the returned function records it with its outcome. */
const NOT_RECORDED = () => undefined;

export function timeUpstream(upstream: string): (outcome: UpstreamOutcome) => void {
  if (!metricsRecording()) return NOT_RECORDED;
  const started = process.hrtime.bigint();
  return (outcome) => {
    const labels = { upstream, outcome };
    upstreamRequests.inc(labels);
    upstreamDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  };
}

/** undici's and node's timeout errors carry a code naming the timeout (UND_ERR_HEADERS_TIMEOUT, ...). */
export function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.includes('TIMEOUT');
}
