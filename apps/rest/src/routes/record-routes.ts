/**
 * The single-record routes every record type of the facade shares (users, items, posts, comments), declared from the
 * resource's declaration (its label, scopes, bodies, representation and GraphQL input) and the route's own parts: its
 * path and id parameters, tag and write rules. Every record is
 * versioned: GET answers a strong ETag from its write counter (If-None-Match -> 304 in the router), and PUT, PATCH and
 * DELETE pass If-Match on as the mutation's `expectedVersion`, so the subgraph checks and writes in one step (ADR 0012).
 */
import { z } from 'zod';
import { entityIdParam, graphqlInput, representation, restSchemas, type Resource } from '@platform/contracts';
import { notFound } from '@platform/errors';
import type { Operation } from '../gateway/gateway-client';
import { defineRoute, type ResponseSpec, type RouteDefinition, type RouteResult } from '../http/route';
import { versionTag } from '../http/conditional';
import {
  checkLimits,
  readRecordSchema,
  readSelection,
  selectionDigest,
  selectionParameters,
  type ReadSelection,
} from './read-selection';

type InvalidIdStatus = 400 | 'validation';

/**
 * Path parameters that are entity ids (`{ item_id: 'Item' }`), each documented with the status a malformed one gets:
 * 400 for `item_id` (the interface says so), the deployment's validation status elsewhere (docs/interface.md#ids,
 * ADR 0010).
 */
export function idParams<K extends string>(
  records: Record<K, string>,
  invalid: InvalidIdStatus = 'validation',
) {
  const otherwise = invalid === 400 ? ' (otherwise 400)' : '';
  const shape = Object.fromEntries(
    Object.entries<string>(records).map(([param, record]) => [
      param,
      entityIdParam(`${record} id, an integer >= 1${otherwise}`),
    ]),
  );
  return z.object(shape as Record<K, ReturnType<typeof entityIdParam>>);
}

export interface RecordResource<N extends { id: string; version: number }, P extends z.ZodType> {
  /** The declaration: the label of 404s, the scopes, the bodies, the representation and the GraphQL input. */
  resource: Resource;
  tag: string;
  /** The path of one record, express style: `/items/:item_id`. */
  path: string;
  params: P;
  /** The status of a malformed id in the path (as `idParams` was told). */
  invalidParams?: InvalidIdStatus;
  /**
   * The GraphQL arguments the path's id parameters are (`{ comment_id: 'id', id: 'postId' }`): the record is `id`
   * (also the id a 404 names), a parent its own argument. The integers go as they are (GraphQL's `ID` takes them).
   */
  arguments: Readonly<Record<string, string>>;
  /** What the body shows that changes without a write to the record (a post's like count), so the ETag follows it. */
  derived?: (node: N) => string;
  /** Who may write, in every write route's description. */
  writeRules: string;
}

interface RouteText {
  operationId: string;
  summary: string;
  description?: string;
}

/** A record's answer: its body and strong ETag (a create adds its `Location`). */
export type Represented = RouteResult & { headers: Record<string, string> };

/** GraphQL variables from validated path (or query) values under their declared argument names (`except` one). */
function argumentsOf(names: Readonly<Record<string, string>>, values: unknown, except?: string): Record<string, unknown> {
  const given = values as Record<string, unknown>;
  const variables: Record<string, unknown> = {};
  for (const [name, argument] of Object.entries(names)) {
    if (argument !== except && given[name] !== undefined) variables[argument] = given[name];
  }
  return variables;
}

/** The data of an operation with one root field: that field's value. */
export const rootOf = <T>(data: Record<string, T>): T => Object.values(data)[0] as T;

/**
 * Where a created record lives (`Location`, RFC 9110 §15.3.2): its express-style path (`/posts/:id/comments/:comment_id`)
 * with the parent's canonical ids from the request's path and the new id in the last parameter, under `/v<n>` when the
 * request named API version n (however it named it), so a GET of it as is serves the representation the 201 tagged.
 * Built from the declaration, not from the request's URL, so only validated ids reach the header.
 */
export function locationOf(
  apiVersion: number | undefined,
  path: string,
  parents: object,
  id: string | number,
): string {
  const names = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  const values: Record<string, unknown> = { ...parents, [names.at(-1)!]: id };
  const prefix = apiVersion === undefined ? '' : `/v${apiVersion}`;
  return prefix + path.replace(/:(\w+)/g, (_, name: string) => String(values[name]));
}

/** A read's query schema with `expand` and `fields` added (the route's own parameters kept). */
export function withSelection(resource: Resource, query?: z.ZodType): z.ZodType {
  const selection = selectionParameters(resource);
  return query instanceof z.ZodObject ? query.extend(selection) : z.looseObject(selection);
}

/**
 * A selected read's answer: the selection's representation, and a strong tag naming the record's version (what
 * If-Match checks) and a digest of the body (expanded records change without the record's version moving).
 */
export function selectedAnswer(
  read: ReadSelection<unknown>,
  node: { version: number } & Record<string, unknown>,
  apiVersion: number | undefined,
  derived?: string,
): Represented {
  const body = read.represent(node);
  const digest = selectionDigest(body);
  return { status: 200, body, headers: { etag: versionTag(node.version, apiVersion, derived ? `${derived}.${digest}` : digest) } };
}

/** A created record's answer: 201, its representation and ETag, and its `Location`. */
export const created = (answer: Represented, location: string): Represented => ({
  ...answer,
  status: 201,
  headers: { ...answer.headers, location },
});

export function recordRoutes<N extends { id: string; version: number }, P extends z.ZodType>(
  route: RecordResource<N, P>,
) {
  const { resource: declaration, ...resource } = route;
  const scopes = declaration.scopes;
  if (!scopes) throw new Error(`${declaration.type} declares no scopes: its routes are its own`);
  const schemas = restSchemas(declaration);
  const toPublic = representation(declaration);
  const toInput = graphqlInput(declaration);
  const label = declaration.label;
  const declared = {
    path: resource.path,
    tags: [resource.tag],
    params: resource.params,
    invalidParamsStatus: resource.invalidParams ?? ('validation' as const),
    versioned: true,
  };
  const name = label.toLowerCase();
  const recordParam = Object.keys(resource.arguments).find((param) => resource.arguments[param] === 'id');
  if (!recordParam) throw new Error(`${label}: no path parameter is the record's id`);
  const variablesOf = (params: unknown) => argumentsOf(resource.arguments, params);
  const idOf = (params: unknown) => (params as Record<string, number>)[recordParam]!;
  const represented = (node: N, apiVersion: number | undefined): Represented => ({
    status: 200,
    body: toPublic(node),
    headers: { etag: versionTag(node.version, apiVersion, resource.derived?.(node)) },
  });
  const writer = { security: 'bearer', scope: scopes.write } as const;
  const writeText = ({ description, ...text }: RouteText) => ({
    ...text,
    ...writer,
    description: description ? `${resource.writeRules} ${description}` : resource.writeRules,
  });

  return {
    /**
     * POST on the collection (`path`, with its own `params` when nested, e.g. a post's comments): 201, the record, its
     * `Location` and its ETag (the one a GET of the location answers, good for `If-Match` at once).
     */
    create: <C extends z.ZodType = z.ZodType>({
      operation,
      params,
      ...text
    }: RouteText & {
      path: string;
      operation: Operation<Record<string, N>>;
      /** The parent's id parameters when the collection is under one (a post's comments). */
      params?: C;
    }): RouteDefinition =>
      defineRoute({
        ...text,
        ...writer,
        tags: [resource.tag],
        ...(params ? { params } : {}),
        method: 'post',
        body: schemas.create,
        createsVersioned: true,
        responses: { 201: { description: `The created ${name}`, schema: schemas.public } },
        handler: async ({ params: parents, body: given, gateway, credentials, version }) => {
          const record = { ...argumentsOf(resource.arguments, parents ?? {}, 'id'), input: toInput(given) };
          const node = rootOf(await gateway.execute(operation, record, credentials));
          return created(
            represented(node, version),
            locationOf(version, resource.path, parents ?? {}, node.id),
          );
        },
      }),

    /** GET of one record; `query` and `queryArguments` add GraphQL arguments from the query (users' `include_inactive`). */
    get: <Q extends z.ZodType = z.ZodType>({
      operation,
      description,
      query,
      queryArguments = {},
      ...text
    }: RouteText & {
      operation: Operation<Record<string, N | null>>;
      query?: Q;
      /** Query parameter -> GraphQL argument (`{ include_inactive: 'includeInactive' }`), values as validated. */
      queryArguments?: Readonly<Record<string, string>>;
    }) =>
      defineRoute({
        ...declared,
        ...text,
        query: withSelection(declaration, query),
        method: 'get',
        description: `Needs \`${scopes.read}\`; an API key is accepted in place of a bearer token.${description ? ` ${description}` : ''}`,
        security: 'bearer-or-api-key',
        scope: scopes.read,
        responses: { 200: { description: `The ${name}`, schema: readRecordSchema(declaration, schemas.public) } },
        handler: async ({ params, query: given, gateway, credentials, version, env }) => {
          const variables = { ...variablesOf(params), ...argumentsOf(queryArguments, given) };
          const read = readSelection(operation, declaration, given);
          if (!read) {
            const node = rootOf(await gateway.execute(operation, variables, credentials));
            if (!node) throw notFound(label, idOf(params));
            return represented(node, version);
          }
          checkLimits(read, variables, env);
          const node = rootOf(await gateway.execute(read.operation, variables, credentials, read.translate));
          if (!node) throw notFound(label, idOf(params));
          return selectedAnswer(read, node, version, resource.derived?.(node));
        },
      }),

    /** PUT (the declaration's replace body) or PATCH (its update body); `conflict` documents a 409 the write can meet. */
    write: (
      method: 'put' | 'patch',
      {
        operation,
        conflict,
        ...text
      }: RouteText & {
        operation: Operation<Record<string, N>>;
        conflict?: string;
      },
    ): RouteDefinition => {
      const updated: Record<number, ResponseSpec> = {
        200: { description: `The ${name} after the update`, schema: schemas.public },
      };
      return defineRoute({
        ...declared,
        ...writeText(text),
        method,
        body: method === 'put' ? schemas.replace : schemas.update,
        responses: conflict ? { ...updated, 409: { description: conflict } } : updated,
        handler: async ({ params, body: given, gateway, credentials, expectedVersion, version }) => {
          const variables = { ...variablesOf(params), input: toInput(given), expectedVersion };
          return represented(rootOf(await gateway.execute(operation, variables, credentials)), version);
        },
      });
    },

    delete: ({
      operation,
      deleted = 'Deleted; empty body',
      ...text
    }: RouteText & { operation: Operation<Record<string, boolean>>; deleted?: string }): RouteDefinition =>
      defineRoute({
        ...declared,
        ...writeText(text),
        method: 'delete',
        responses: { 204: { description: deleted } },
        handler: async ({ params, gateway, credentials, expectedVersion }) => {
          await gateway.execute(operation, { ...variablesOf(params), expectedVersion }, credentials);
          return { status: 204 };
        },
      }),
  };
}
