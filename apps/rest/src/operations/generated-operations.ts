/**
 * Every generated document (`CreateUserDocument`, apps/rest/src/operations/__generated__) as the operation the routes
 * execute (`CreateUser`), typed by its result and variables; the per-resource modules pick theirs by name.
 */
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import { operation, type Operation } from '../gateway/gateway-client';
import * as generated from './__generated__/operations';

type Generated = typeof generated;

export type GeneratedOperations = {
  [
    K in keyof Generated as K extends `${infer Name}Document` ? Name : never
  ]: Generated[K] extends DocumentTypeDecoration<infer TData, infer TVariables>
    ? Operation<TData, TVariables>
    : never;
};

const SUFFIX = 'Document';

export const GENERATED_OPERATIONS = Object.fromEntries(
  Object.entries(generated)
    .filter(([name]) => name.endsWith(SUFFIX))
    .map(([name, document]) => [
      name.slice(0, -SUFFIX.length),
      operation(document as DocumentTypeDecoration<unknown, unknown>),
    ]),
) as GeneratedOperations;
