/** schema.graphql files are imported as SDL text (esbuild `text` loader; tools/jest-text-transform.cjs in tests). */
declare module '*.graphql' {
  const sdl: string;
  export default sdl;
}
