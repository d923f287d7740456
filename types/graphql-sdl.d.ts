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
