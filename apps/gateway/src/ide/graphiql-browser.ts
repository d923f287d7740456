/// <reference lib="dom" />
/**
 * The browser side of the gateway's GraphiQL (bundled by tools/build.mjs into dist/apps/gateway/graphiql/, served by
 * graphiql-page.ts; nothing is loaded from elsewhere). The schema comes from the gateway's API schema as SDL (docs
 * from its descriptions, also in production where introspection is off); the headers editor takes the bearer token.
 */
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { buildSchema } from 'graphql';
import 'graphiql/graphiql.css';

interface PageConfig {
  endpoint: string;
  schemaUrl: string;
}

const DEFAULT_QUERY = `# Paste your access token in the Headers tab below, as
#   { "Authorization": "Bearer <access_token>" }
# (POST /token on the REST facade, or the login mutation, gives one). Then run:
query Me {
  me {
    id
    username
    role
  }
}
`;

async function main(): Promise<void> {
  const container = document.getElementById('graphiql');
  if (!container) return;
  // Sized here, not by style attributes (the page's CSP allows none).
  document.body.style.margin = '0';
  container.style.height = '100vh';
  const config = JSON.parse(container.dataset['config'] ?? '{}') as PageConfig;
  const response = await fetch(config.schemaUrl, { credentials: 'same-origin' });
  const schema = buildSchema(await response.text());
  const fetcher = createGraphiQLFetcher({ url: config.endpoint });
  createRoot(container).render(
    createElement(GraphiQL, {
      fetcher,
      schema,
      defaultQuery: DEFAULT_QUERY,
      isHeadersEditorEnabled: true,
      // The token is a credential: kept for this tab only, never written to localStorage.
      shouldPersistHeaders: false,
      defaultEditorToolsVisibility: 'headers',
    }),
  );
}

void main();
