// `nx run <project>:typecheck`: type-checks one project's files (and what they import) with the workspace's
// tsconfig.json. Hand-written because tsc takes either a tsconfig or a file list, not "this tsconfig, these files";
// a tsconfig per project would repeat the same options 23 times. The root `npm run typecheck` checks everything in
// one program (faster than the projects one by one on a fresh machine).
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const projectRoot = process.argv[2];
if (!projectRoot) {
  process.stderr.write('usage: node tools/typecheck-project.mjs <project root, e.g. libs/errors>\n');
  process.exit(2);
}
const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  },
});
const inProject = resolve(root, projectRoot) + sep;
const ambient = resolve(root, 'types') + sep;
const rootNames = config.fileNames.filter((file) => resolve(file).startsWith(inProject) || resolve(file).startsWith(ambient));
const program = ts.createProgram({ rootNames, options: config.options, projectReferences: config.projectReferences });
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  process.exit(1);
}
process.stdout.write(`${projectRoot}: ${rootNames.length} files type-check\n`);
