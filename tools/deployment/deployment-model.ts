/**
 * Reads what the code says a deployment must provide (each app's environment variables and default port, from
 * apps/<app>/src/environment.ts and libs/config) and the shape of the Dockerfile, for the deployment tests.
 */
import ts from 'typescript';

export interface EnvironmentVariable {
  name: string;
  /** The zod expression as written, e.g. `port(3000)` or `z.string().optional()`. */
  expression: string;
  /** The process starts without it (a default or `.optional()`). */
  optional: boolean;
}

const DEFAULTING = /^(port|metricsPort|compressionMinBytes|host|booleanFlag)\(|\.optional\(\)|\.default\(/;

/**
 * The variables of the zod object literal given to `z.object({...})` or `.extend({...})` in a TypeScript source
 * (parsed with the TypeScript compiler, so formatting does not matter).
 */
export function parseEnvironmentSchema(source: string): EnvironmentVariable[] {
  const file = ts.createSourceFile('environment.ts', source, ts.ScriptTarget.Latest, true);
  const variables: EnvironmentVariable[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const isObject = method === 'object' && node.expression.expression.getText(file) === 'z';
      const argument = node.arguments[0];
      if ((isObject || method === 'extend') && argument && ts.isObjectLiteralExpression(argument)) {
        for (const property of argument.properties) {
          if (!ts.isPropertyAssignment(property)) continue;
          const name = property.name.getText(file).replace(/^['"]|['"]$/g, '');
          if (!/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
          const expression = property.initializer.getText(file).replace(/\s+/g, '');
          variables.push({ name, expression, optional: DEFAULTING.test(expression) });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (variables.length === 0) throw new Error('no z.object({ or .extend({ with variables found');
  return variables;
}

/** The default of `PORT: port(N)`. */
export function defaultPort(variables: EnvironmentVariable[]): number | undefined {
  const port = variables.find((v) => v.name === 'PORT');
  const match = port && /^port\((\d+)\)/.exec(port.expression);
  return match ? Number(match[1]) : undefined;
}

export interface DockerStage {
  from: string;
  name: string | undefined;
  instructions: { keyword: string; args: string }[];
}

/** Dockerfile stages with their instructions (continuation lines joined, comments dropped). */
export function parseDockerfile(source: string): { args: Record<string, string>; stages: DockerStage[] } {
  const logical: string[] = [];
  let pending = '';
  for (const raw of source.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push(`${pending}${line}`.trim());
    pending = '';
  }
  const args: Record<string, string> = {};
  const stages: DockerStage[] = [];
  for (const line of logical) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const upper = keyword.toUpperCase();
    const argText = rest.join(' ');
    if (upper === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(argText);
      stages.push({ from: match?.[1] ?? argText, name: match?.[2], instructions: [] });
    } else if (upper === 'ARG' && stages.length === 0) {
      const [name = '', value = ''] = argText.split('=');
      args[name] = value;
    } else {
      stages.at(-1)?.instructions.push({ keyword: upper, args: argText });
    }
  }
  return { args, stages };
}

/** Follows `FROM <stage>` chains: every instruction that applies to a target, base first. */
export function stageChain(stages: DockerStage[], target: string): DockerStage[] {
  const chain: DockerStage[] = [];
  let current = stages.find((s) => s.name === target);
  while (current) {
    chain.unshift(current);
    const parent = current.from;
    current = stages.find((s) => s.name === parent);
  }
  return chain;
}
