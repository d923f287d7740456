/**
 * A Redis Sentinel group of real processes on loopback, as the HA manifests run it (password on the data nodes and on
 * the Sentinels): a master, replicas, and three Sentinels (the Debian redis-server binary with `--sentinel`), quorum 2.
 *
 * Each data node is reached through a front proxy at the address it announces (`--replica-announce-port`), which is
 * where the Sentinels, the clients and the replicas connect. The proxy tells a replica's replication connection by
 * its `REPLCONF`/`PSYNC` and can hold what the master sends on it (the master does not know: replication lagging),
 * so a test can make the master acknowledge writes that a failover then loses. (A proxy on the replica's side only
 * would not do: the Sentinels "fix" a replica whose master address is not the master's, and it then bypasses it.)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ensureRedisServer, freePort, startProcess, waitForPort, type ManagedProcess } from '@platform/dev-stack';

export const MASTER_NAME = 'mymaster';

export interface DataNode {
  /** The port everyone uses (the front proxy's). */
  port: number;
  process: ManagedProcess;
}

interface Front {
  server: Server;
  /** What the node sends its replicas is dropped from now on (they stop receiving; the node does not notice). */
  holdReplication(): void;
  close(): Promise<void>;
}

export interface SentinelGroup {
  /** REDIS_URL for the apps: `redis+sentinel://` with the three Sentinels. */
  url: string;
  nodes: DataNode[];
  /** The master's port as the Sentinels name it now. */
  masterPort(): Promise<number>;
  /** Waits until the Sentinels name a master other than `port` and it answers as one; resolves its port. */
  failedOverFrom(port: number, timeoutMs: number): Promise<number>;
  /** Starts one more replica of the current master, waits until it is in sync and the Sentinels know it. */
  addReplica(): Promise<DataNode>;
  /** From now on the master's replicas receive nothing more from it. */
  holdReplication(port: number): void;
  /** SIGKILL, and its address stops answering (what was held is gone with it). */
  kill(port: number): Promise<void>;
  /** A client of a data node (for checks). */
  client(port: number): Redis;
  stop(): Promise<void>;
}

/** The front of one data node: every connection forwarded, replication connections holdable. */
function startFront(listenPort: number, nodePort: number): Promise<Front> {
  let held = false;
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    const node = connect(nodePort, '127.0.0.1');
    const pair: [Socket, Socket] = [client, node];
    pairs.add(pair);
    let replication = false;
    client.on('data', (chunk) => {
      if (!replication && /REPLCONF|PSYNC/i.test(chunk.toString('latin1'))) replication = true;
      node.write(chunk);
    });
    node.on('data', (chunk) => {
      if (!(held && replication)) client.write(chunk);
    });
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      node.destroy();
    };
    client.on('error', end).on('close', end);
    node.on('error', end).on('close', end);
  });
  return new Promise((resolve) =>
    server.listen(listenPort, '127.0.0.1', () =>
      resolve({
        server,
        holdReplication: () => {
          held = true;
        },
        close: () =>
          new Promise<void>((done) => {
            for (const [client, node] of pairs) {
              client.destroy();
              node.destroy();
            }
            server.close(() => done());
          }),
      }),
    ),
  );
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} not within ${timeoutMs} ms${last ? ` (${String(last)})` : ''}`);
}

export async function startSentinelGroup(dir: string): Promise<SentinelGroup> {
  const binary = await ensureRedisServer();
  const password = 'sentinel-test-data-password';
  const sentinelPassword = 'sentinel-test-sentinel-password';
  const nodes: DataNode[] = [];
  const fronts = new Map<number, Front>();
  const sentinels: ManagedProcess[] = [];
  const clients = new Map<string, Redis>();
  const client = (port: number, sentinel = false) => {
    const known = clients.get(`${sentinel}:${port}`);
    if (known) return known;
    const redis = new Redis({
      host: '127.0.0.1',
      port,
      password: sentinel ? sentinelPassword : password,
      // Reconnecting: a failover kills the clients of the promoted replica (and of a demoted master).
      maxRetriesPerRequest: 1,
      commandTimeout: 2_000,
      retryStrategy: () => 200,
    });
    redis.on('error', () => undefined);
    clients.set(`${sentinel}:${port}`, redis);
    return redis;
  };

  const startNode = async (replicaOf?: number): Promise<DataNode> => {
    const port = await freePort();
    const nodePort = await freePort();
    const nodeDir = join(dir, `redis-${port}`);
    mkdirSync(nodeDir, { recursive: true });
    const args = ['--port', String(nodePort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', nodeDir];
    args.push('--requirepass', password, '--masterauth', password);
    args.push('--replica-announce-ip', '127.0.0.1', '--replica-announce-port', String(port));
    if (replicaOf !== undefined) args.push('--replicaof', '127.0.0.1', String(replicaOf));
    const process = startProcess(`redis-${port}`, binary, args, { stdio: 'ignore' });
    await waitForPort(nodePort, 15_000, () => process.child.exitCode === null);
    fronts.set(port, await startFront(port, nodePort));
    const node: DataNode = { port, process };
    nodes.push(node);
    if (replicaOf !== undefined)
      await until('replica in sync', 15_000, async () =>
        /master_link_status:up/.test(await client(port).info('replication')) ? true : undefined,
      );
    return node;
  };

  const master = await startNode();
  const first = await startNode(master.port);
  const sentinelPorts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const sentinelDir = join(dir, `sentinel-${port}`);
    mkdirSync(sentinelDir, { recursive: true });
    const config = join(sentinelDir, 'sentinel.conf');
    writeFileSync(
      config,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${sentinelDir}`,
        `requirepass ${sentinelPassword}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 2`,
        `sentinel auth-pass ${MASTER_NAME} ${password}`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 5000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        '',
      ].join('\n'),
    );
    const process = startProcess(`sentinel-${port}`, binary, [config, '--sentinel'], { stdio: 'ignore' });
    await waitForPort(port, 15_000, () => process.child.exitCode === null);
    sentinels.push(process);
    sentinelPorts.push(port);
  }
  /** Every Sentinel knows the others and sees each of `ports` as a replica that is up. */
  const replicasKnown = (ports: number[]) =>
    until(`Sentinels knowing each other and the replicas ${ports.join(', ')}`, 30_000, async () => {
      for (const port of sentinelPorts) {
        const fields = (await client(port, true).call('SENTINEL', 'MASTER', MASTER_NAME)) as string[];
        if (Number(fields[fields.indexOf('num-other-sentinels') + 1]) !== 2) return undefined;
        const replicas = (await client(port, true).call('SENTINEL', 'REPLICAS', MASTER_NAME)) as string[][];
        const up = replicas
          .map((entry) => Object.fromEntries(entry.flatMap((_, i) => (i % 2 === 0 ? [[entry[i], entry[i + 1]]] : []))))
          .filter((replica) => !String(replica['flags']).includes('down'))
          .map((replica) => Number(replica['port']));
        if (!ports.every((p) => up.includes(p))) return undefined;
      }
      return true;
    });
  await replicasKnown([first.port]);
  const sentinel = client(sentinelPorts[0]!, true);
  const masterPort = async () =>
    Number(((await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as [string, string])[1]);

  return {
    url: `redis+sentinel://:${password}@${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/${MASTER_NAME}?sentinelPassword=${sentinelPassword}`,
    nodes,
    masterPort,
    failedOverFrom: (port, timeoutMs) =>
      until('a failover', timeoutMs, async () => {
        const now = await masterPort();
        if (now === port) return undefined;
        return /role:master/.test(await client(now).info('replication')) ? now : undefined;
      }),
    addReplica: async () => {
      const node = await startNode(await masterPort());
      await replicasKnown([node.port]);
      return node;
    },
    holdReplication: (port) => fronts.get(port)!.holdReplication(),
    kill: async (port) => {
      await nodes.find((node) => node.port === port)!.process.stop('SIGKILL');
      await fronts.get(port)!.close();
    },
    client: (port) => client(port),
    stop: async () => {
      for (const redis of clients.values()) redis.disconnect();
      await Promise.all(sentinels.map((s) => s.stop('SIGTERM', 5_000)));
      await Promise.all(nodes.map((n) => n.process.stop('SIGTERM', 5_000)));
      await Promise.all([...fronts.values()].map((front) => front.close()));
    },
  };
}
