/**
 * GraphQL code generation (tools/codegen.mjs runs it before lint, typecheck and the build; the output is not checked in).
 * Each subgraph's resolver types come from its schema.graphql (with `# @include`s resolved, as the build sees it),
 * mapped to the documents its resolvers return; the facade's operation types and typed document strings come from
 * the composed API schema (schema/api.graphql) and the documents in apps/rest/src/operations/*.graphql, with those the
 * resource declarations derive (__generated__/resources.graphql).
 */
import type { CodegenConfig } from '@graphql-codegen/cli';
import type { TypeScriptPluginConfig } from '@graphql-codegen/typescript';
import type { TypeScriptResolversPluginConfig } from '@graphql-codegen/typescript-resolvers';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import sdl from './tools/graphql-sdl.cjs';

const ROOT = __dirname;

const HEADER = '/* Generated from codegen.ts by tools/codegen.mjs (lint, typecheck, build); not checked in, do not edit. */\n/* eslint-disable */';

/** Shared by the resolver and the operation types. */
const common: TypeScriptPluginConfig = {
  // Role and the other enums are string unions, like the values the documents and the Mongo documents hold.
  enumsAsTypes: true,
  // A DateTime is an RFC 3339 string on the wire; resolvers may return a Date (graphql-scalars serialises it).
  scalars: { DateTime: { input: 'string', output: 'string' } },
  useTypeImports: true,
};

/** One subgraph's resolver types: the generated `Resolvers` its resolver map is typed with. */
function subgraph(
  name: string,
  config: { contextType: string; mappers: Record<string, string> },
): CodegenConfig['generates'] {
  const resolversConfig: TypeScriptResolversPluginConfig & TypeScriptPluginConfig = {
    ...common,
    scalars: { DateTime: { input: 'string', output: 'Date | string' } },
    federation: true,
    // Assignable to @apollo/subgraph's GraphQLResolverMap.
    useIndexSignature: true,
    contextType: config.contextType,
    mappers: config.mappers,
    // Imported as `CreatedApiKeyModel` etc., apart from the generated GraphQL type of the same name (a connection
    // mapper names its node's mapper so: `Connection<UserDocumentModel>`, the lazily counted listing result).
    mapperTypeSuffix: 'Model',
  };
  return {
    [`apps/${name}/src/__generated__/resolvers-types.ts`]: {
      schema: sdl.loadSdl(join(ROOT, 'apps', name, 'src', 'schema.graphql')),
      plugins: [{ add: { content: HEADER } }, 'typescript', 'typescript-resolvers'],
      config: resolversConfig,
    },
  };
}

const config: CodegenConfig = {
  overwrite: true,
  silent: true,
  // Plugins resolve from this repository whatever the working directory (the drift check generates into a temp dir).
  pluginLoader: createRequire(join(ROOT, 'package.json')),
  generates: {
    ...subgraph('auth', {
      contextType: '../context#AuthContext',
      mappers: {
        ApiKey: '../domain/api-key-service#StoredApiKey',
        CreatedApiKey: '../domain/api-key-service#CreatedApiKey',
        ApiKeyPrincipal: '../domain/api-key-service#ApiKeyPrincipal',
      },
    }),
    ...subgraph('users', {
      contextType: '../context#UsersContext',
      mappers: {
        User: '../data-access/user-repository#UserDocument',
        UserConnection: '@platform/listing#Connection<UserDocumentModel>',
      },
    }),
    ...subgraph('items', {
      contextType: '../context#ItemsContext',
      mappers: {
        Item: '../data-access/item-repository#ItemDocument',
        ItemConnection: '@platform/listing#Connection<ItemDocumentModel>',
        User: '@platform/graphql-server#EntityReference',
      },
    }),
    ...subgraph('posts', {
      contextType: '../context#PostsContext',
      mappers: {
        Post: '../data-access/post-repository#PostDocument',
        Comment: '../data-access/comment-repository#CommentDocument',
        PostConnection: '@platform/listing#Connection<PostDocumentModel>',
        CommentConnection: '@platform/listing#Connection<CommentDocumentModel>',
        User: '@platform/graphql-server#EntityReference',
      },
    }),
    // The facade: result and variable types of each fixed operation, and the document text itself, sent as is.
    'apps/rest/src/operations/__generated__/operations.ts': {
      schema: join(ROOT, 'schema', 'api.graphql'),
      // The hand-written documents, and those the resource declarations derive (tools/codegen.mjs writes them first).
      documents: [
        join(ROOT, 'apps', 'rest', 'src', 'operations', '*.graphql'),
        join(ROOT, 'apps', 'rest', 'src', 'operations', '__generated__', '*.graphql'),
      ],
      plugins: [{ add: { content: HEADER } }, 'typescript-operations', 'typed-document-node'],
      config: {
        ...common,
        // Only the enums and inputs the operations use, not every type of the API schema.
        onlyOperationTypes: true,
        skipTypename: true,
        documentMode: 'string',
      },
    },
  },
};

export default config;
