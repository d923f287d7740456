/** schema.graphql files are imported as SDL text (esbuild `text` loader; tools/jest-text-transform.cjs in tests). */
declare module '*.graphql' {
  const sdl: string;
  export default sdl;
}

/** Markdown documents bundled as text (esbuild `text` loader), e.g. the versioning migration note. */
declare module '*.md' {
  const text: string;
  export default text;
}

/** tools/graphql-sdl.cjs: a schema.graphql with its `# @include` lines resolved (codegen.ts reads SDL through it). */
declare module '*/graphql-sdl.cjs' {
  export function loadSdl(file: string): string;
  export function resolveIncludes(text: string): string;
  const sdl: { loadSdl: typeof loadSdl; resolveIncludes: typeof resolveIncludes };
  export default sdl;
}
