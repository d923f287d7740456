/**
 * What both credential checks (access-token-status.ts, api-key-exchange.ts) add to keeping their subgraph's answers
 * as every checker of an account does (libs/read-cache KeptAnswers: under the generations of what they read, one call
 * shared between checks that read the same generations, every request asks while the generations are unknown): a call
 * that failed becomes the GraphQL error the operation fails with (503 while the subgraph cannot say).
 */
import { GraphQLError } from 'graphql';
import { AppError } from '@platform/errors';

/** A check that could not be made is the dependency's outage (503), asked again next time; never a pass. */
export async function askedAsOperation<V>(ask: () => Promise<V>): Promise<V> {
  try {
    return await ask();
  } catch (error) {
    const unavailable = !(error instanceof AppError) || error.code === 'SERVICE_UNAVAILABLE';
    throw new GraphQLError(unavailable ? 'Service temporarily unavailable' : 'Internal server error', {
      extensions: {
        code: unavailable ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_SERVER_ERROR',
        http: { status: unavailable ? 503 : 500 },
      },
    });
  }
}
