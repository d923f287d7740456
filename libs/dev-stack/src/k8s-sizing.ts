/**
 * What an app's Kubernetes Deployment gives its container: the memory request and limit, and the V8 old-space limit
 * (`--max-old-space-size` in the container's NODE_OPTIONS). One reading of the manifests for the two that need it: the
 * capacity run (bench/capacity.ts) starts every process with the heap its manifest sets and fails when one outgrows the
 * manifest's memory limit; the deployment tests hold every heap below its limit by HEAP_HEADROOM. So the numbers live
 * in k8s/base/apps/<app>.yaml only (docs/capacity.md explains them).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { AppName } from './system';

const MIB = 1024 * 1024;

/** Kubernetes quantity suffixes (binary and decimal) as multipliers. */
const QUANTITY_UNITS: Record<string, number> = {
  '': 1,
  Ki: 1024,
  Mi: MIB,
  Gi: 1024 * MIB,
  k: 1e3,
  M: 1e6,
  G: 1e9,
};

/** A memory quantity (`512Mi`, `1Gi`, `268435456`) in bytes; throws on anything else. */
export function parseMemoryQuantity(quantity: string | number): number {
  const match = /^(\d+(?:\.\d+)?)([KMG]i|[kMG])?$/.exec(String(quantity));
  if (!match) throw new Error(`not a memory quantity: ${String(quantity)}`);
  return Number(match[1]) * QUANTITY_UNITS[match[2] ?? '']!;
}

/** The old-space limit in MiB that NODE_OPTIONS sets (`--max-old-space-size=384`), or undefined. */
export function heapLimitMiB(nodeOptions: string | undefined): number | undefined {
  const match = /(?:^|\s)--max-old-space-size[= ](\d+)(?:\s|$)/.exec(nodeOptions ?? '');
  return match ? Number(match[1]) : undefined;
}

/**
 * What the process needs beside the old space the heap limit bounds: the young generation (two semi-spaces of up to
 * 16 MiB each), code and the binary itself (about 60 MiB resident idle), Buffers and other memory outside the V8 heap
 * (sockets, TLS, undici, the driver), thread stacks and allocator slack. The measured idle RSS of an app is 120-260
 * MiB with an old space of 30-130 MiB of it (docs/capacity.md), so at least 128 MiB, and a quarter of a larger limit.
 */
export const heapHeadroomBytes = (memoryLimitBytes: number): number =>
  Math.max(128 * MIB, memoryLimitBytes / 4);

export interface ContainerSizing {
  memoryRequestBytes: number | undefined;
  memoryLimitBytes: number | undefined;
  cpuRequest: string | undefined;
  cpuLimit: string | undefined;
  /** The container's NODE_OPTIONS as written (an `env` value), if any. */
  nodeOptions: string | undefined;
  heapMiB: number | undefined;
}

interface DeploymentLike {
  kind?: string;
  metadata?: { name?: string };
  spec?: {
    template?: {
      spec?: {
        containers?: Array<{
          env?: Array<{ name: string; value?: string }>;
          resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
        }>;
      };
    };
  };
}

/** The sizing of a Deployment's first container (the app; the pods run no sidecar). */
export function containerSizing(deployment: DeploymentLike): ContainerSizing {
  const container = deployment.spec?.template?.spec?.containers?.[0];
  if (!container) throw new Error(`Deployment ${deployment.metadata?.name ?? '?'} has no container`);
  const memory = (value: string | undefined) =>
    value === undefined ? undefined : parseMemoryQuantity(value);
  const nodeOptions = container.env?.find((e) => e.name === 'NODE_OPTIONS')?.value;
  return {
    memoryRequestBytes: memory(container.resources?.requests?.['memory']),
    memoryLimitBytes: memory(container.resources?.limits?.['memory']),
    cpuRequest: container.resources?.requests?.['cpu'],
    cpuLimit: container.resources?.limits?.['cpu'],
    nodeOptions,
    heapMiB: heapLimitMiB(nodeOptions),
  };
}

/** The sizing k8s/base/apps/<app>.yaml sets for the app's Deployment. */
export function manifestSizing(rootDir: string, app: AppName): ContainerSizing {
  const text = readFileSync(join(rootDir, 'k8s', 'base', 'apps', `${app}.yaml`), 'utf8');
  const deployment = parseAllDocuments(text)
    .map((document) => document.toJS() as DeploymentLike)
    .find((object) => object?.kind === 'Deployment' && object.metadata?.name === app);
  if (!deployment) throw new Error(`k8s/base/apps/${app}.yaml has no Deployment ${app}`);
  return containerSizing(deployment);
}
