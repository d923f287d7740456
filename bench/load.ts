/**
 * Closed-loop load of several request streams at once, each counted apart: the mixed read/write scenarios (readers of
 * a hot set and writers of other records, side by side) and the writes alone (issue 29). Each stream has its own
 * undici `Pool` (its own keep-alive connections) and one loop per connection: send, wait for the whole answer, record,
 * send again. When the time is up the loops stop sending and every request in flight is answered before `runStreams`
 * returns, so "after the load" means after the last answer (the write scenarios measure the database's CPU from then).
 *
 * Why not autocannon, which loads the other scenarios: it reports one histogram for all its requests (the mixed
 * scenarios need reads and writes apart), and it ends a timed run by destroying its connections, dropping the requests
 * in flight, whose work then goes on in the servers and would land in the after-load measurement.
 */
import { Pool } from 'undici';
import { percentile, type LoadRun } from './bench-results';

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Stream {
  name: string;
  connections: number;
  next: () => RequestSpec;
  expectStatus: number;
  /** GraphQL answers errors with a 200: a body with `errors` counts as an error. */
  graphqlBodies?: boolean;
  /**
   * A client operation of several round trips (the N+1 client of issue 27): the requests sent one after another on the
   * same loop once `next()`'s answer arrived, read from that answer. The operation is the unit counted (its latency
   * runs from the first request to the last answer); every request is a round trip (`roundTrips`).
   */
  followUps?: (body: string) => RequestSpec[];
}

export interface StreamRun extends LoadRun {
  /** Answers by status (`error` for a connection error or a timeout). */
  statuses: Record<string, number>;
}

export interface StreamsRun {
  streams: Record<string, StreamRun>;
  /** Date.now() when the last answer arrived. */
  endedAt: number;
}

/**
 * Runs the streams against `baseUrl` for `seconds`, then lets the requests in flight finish (each bounded by
 * `timeoutMs`, after which it counts as an error). Throughput is answers over the time from the start to the last answer.
 */
export async function runStreams(baseUrl: string, streams: readonly Stream[], seconds: number, timeoutMs: number): Promise<StreamsRun> {
  const started = Date.now();
  const until = started + seconds * 1000;
  const results = await Promise.all(
    streams.map(async (stream) => {
      const pool = new Pool(baseUrl, { connections: stream.connections, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      const latencies: number[] = [];
      const statuses: Record<string, number> = {};
      let errors = 0;
      let non2xx = 0;
      let roundTrips = 0;
      /** One request: its status and body (null when it had no answer). */
      const send = async (spec: RequestSpec): Promise<{ status: number; text: string } | null> => {
        roundTrips += 1;
        try {
          const response = await pool.request({ origin: baseUrl, path: spec.path, method: spec.method, headers: spec.headers ?? {}, body: spec.body ?? null });
          return { status: response.statusCode, text: await response.body.text() };
        } catch {
          return null;
        }
      };
      const loop = async () => {
        while (Date.now() < until) {
          const spec = stream.next();
          const sent = performance.now();
          let status = 'error';
          let answer = await send(spec);
          if (answer && answer.status === stream.expectStatus && stream.followUps) {
            for (const followUp of stream.followUps(answer.text)) {
              answer = await send(followUp);
              if (!answer || answer.status !== stream.expectStatus) break;
            }
          }
          if (answer) {
            status = String(answer.status);
            if (answer.status !== stream.expectStatus) non2xx += 1;
            else if (stream.graphqlBodies && answer.text.includes('"errors"')) errors += 1;
          } else {
            errors += 1;
          }
          latencies.push(performance.now() - sent);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: stream.connections }, loop));
      const ended = Date.now();
      await pool.close();
      latencies.sort((a, b) => a - b);
      const run: StreamRun = {
        requests: latencies.length,
        durationSeconds: 0,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        errors,
        non2xx,
        statuses,
        roundTrips,
      };
      return { name: stream.name, run, ended };
    }),
  );
  const endedAt = Math.max(started, ...results.map((r) => r.ended));
  const durationSeconds = (endedAt - started) / 1000;
  return { streams: Object.fromEntries(results.map(({ name, run }) => [name, { ...run, durationSeconds }])), endedAt };
}
