/**
 * GraphQL metrics as one Apollo plugin (gateway and subgraphs): operations by name, type and outcome, their duration,
 * and the errors of each response by `extensions.code` (read after formatError, so the codes are the registry's).
 */
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import {
  graphqlDuration,
  graphqlErrors,
  graphqlOperations,
  LabelBudget,
  metricsRecording,
  operationNames,
} from '@platform/metrics';

/** Codes come from the error registry and Apollo; the budget only guards against a subgraph inventing new ones. */
const errorCodes = new LabelBudget(100, 'NONE');

export function graphqlMetricsPlugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart({ request }) {
      if (!metricsRecording()) return;
      const started = process.hrtime.bigint();
      let type = 'unknown';
      return {
        async didResolveOperation({ operation }) {
          type = operation?.operation ?? 'unknown';
        },
        async willSendResponse({ response }) {
          const operation = operationNames.label(request.operationName);
          graphqlDuration.observe({ operation, type }, Number(process.hrtime.bigint() - started) / 1e9);
          if (response.body.kind !== 'single') {
            graphqlOperations.inc({ operation, type, outcome: 'success' });
            return;
          }
          const { errors, data } = response.body.singleResult;
          if (!errors || errors.length === 0) {
            graphqlOperations.inc({ operation, type, outcome: 'success' });
            return;
          }
          graphqlOperations.inc({ operation, type, outcome: data ? 'partial' : 'error' });
          for (const error of errors) {
            const code = error.extensions?.['code'];
            graphqlErrors.inc({ code: errorCodes.label(typeof code === 'string' ? code : undefined) });
          }
        },
      };
    },
  };
}
