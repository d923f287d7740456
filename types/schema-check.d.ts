/** tools/schema-check.cjs: the API schema check shared by tools/build.mjs and its tests. */
declare module '*/schema-check.cjs' {
  export interface SchemaChange {
    level: 'breaking' | 'dangerous' | 'safe';
    message: string;
    path?: string;
  }
  export const API_SCHEMA_PATH: string;
  export const SUBGRAPHS: string[];
  export function subgraphSdls(): Record<string, string>;
  export function compose(sdls?: Record<string, string>): { supergraphSdl: string; apiSdl: string };
  export function classify(fromSdl: string, toSdl: string): Promise<SchemaChange[]>;
  /** Types, fields, input fields and enum values without a description. */
  export function undocumented(apiSdl: string): string[];
  export function checkApiSchema(apiSdl: string, path?: string): Promise<SchemaChange[]>;
  export function updateApiSchema(options?: {
    apiSdl?: string;
    path?: string;
    changelog?: string;
    note?: string;
  }): Promise<SchemaChange[]>;
}
