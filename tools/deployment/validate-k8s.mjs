// Validates Kubernetes manifests offline against the Kubernetes API schemas that the npm package
// kubernetes-models ships (one compiled validator per apiVersion/kind), and the Prometheus Operator's CRDs
// (ServiceMonitor, PrometheusRule, ...) against @kubernetes-models/prometheus-operator, generated from the Operator's
// CRD schemas. An object of a kind neither has a schema for is an error too. Prints a JSON array, one entry per object: { apiVersion, kind, name, errors }.
// CLI: node tools/deployment/validate-k8s.mjs <file.yaml>...   (or the YAML on stdin); exits 1 on any error.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

async function modelFor(apiVersion, kind) {
  if (
    typeof apiVersion !== 'string' ||
    typeof kind !== 'string' ||
    !/^[A-Za-z0-9.]+(\/[a-z0-9]+)?$/.test(apiVersion) ||
    !/^[A-Za-z]+$/.test(kind)
  ) {
    return undefined;
  }
  const source = apiVersion.startsWith('monitoring.coreos.com/')
    ? `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`
    : `kubernetes-models/${apiVersion}/${kind}`;
  try {
    const module = await import(source);
    return module[kind];
  } catch {
    return undefined;
  }
}

/** Validates every object of a multi-document YAML text. */
export async function validateManifests(text) {
  const results = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) {
      results.push({
        apiVersion: null,
        kind: null,
        name: null,
        errors: document.errors.map((e) => e.message),
      });
      continue;
    }
    const object = document.toJS();
    if (object === null || object === undefined) continue;
    const { apiVersion, kind } = object;
    const name = object.metadata?.name ?? null;
    const Model = await modelFor(apiVersion, kind);
    if (!Model) {
      results.push({ apiVersion, kind, name, errors: [`no Kubernetes schema for ${apiVersion} ${kind}`] });
      continue;
    }
    // kustomize writes long base64 values over several lines; the API server's base64 decoding skips line
    // breaks, the schema's `byte` format does not: compare the value as the server reads it.
    if (kind === 'Secret' && object.data) {
      for (const key of Object.keys(object.data))
        object.data[key] = String(object.data[key]).replace(/[\r\n]/g, '');
    }
    try {
      new Model(object).validate();
      results.push({ apiVersion, kind, name, errors: [] });
    } catch (error) {
      const details = Array.isArray(error?.errors)
        ? error.errors.map((e) => `${e.instancePath || '/'} ${e.message}`)
        : [error instanceof Error ? error.message : String(error)];
      results.push({ apiVersion, kind, name, errors: details });
    }
  }
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = process.argv.slice(2);
  const text =
    files.length > 0 ? files.map((f) => readFileSync(f, 'utf8')).join('\n---\n') : readFileSync(0, 'utf8');
  validateManifests(text).then(
    (results) => {
      process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
      process.exit(results.some((r) => r.errors.length > 0) ? 1 : 0);
    },
    (error) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    },
  );
}
