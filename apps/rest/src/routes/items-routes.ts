/** The items resource: CRUD and listing, translated into gateway operations on the items subgraph. */
import { z } from 'zod';
import { entityIdParam, ItemCreate, ItemPublic, ItemReplace, ItemUpdate } from '@platform/contracts';
import { notFound } from '@platform/errors';
import { LISTINGS, toConnectionVariables } from '@platform/listing';
import { defineRoute } from '../http/route';
import {
  CreateItem,
  DeleteItem,
  GetItem,
  ListItems,
  ReplaceItem,
  UpdateItem,
} from '../operations/items-operations';
import { toItemInput, toItemPublic } from './resource-representation';
import {
  LIST_STYLES_TEXT,
  listBodySchema,
  listParameters,
  listQueryOf,
  listResponse,
} from './resource-listing';
import { versionTag } from '../http/conditional';

const ItemIdParams = z.object({ item_id: entityIdParam('Item id, an integer >= 1 (otherwise 400)') });

const WRITE_RULES =
  'Needs `items:write`. A member may change only items it owns (403 otherwise); an admin any. A missing item is 404 ' +
  '(checked before ownership). `owner_id` may be set only by an admin; anyone else may omit it or give their own id (403 otherwise).';

export const itemsRoutes = [
  defineRoute({
    method: 'post',
    path: '/items/',
    operationId: 'createItem',
    summary: 'Create an item',
    description: `${WRITE_RULES} The owner defaults to the caller. Price: 0..1,000,000,000 with at most 2 decimal places.`,
    tags: ['items'],
    security: 'bearer',
    scope: 'items:write',
    body: ItemCreate,
    responses: {
      201: {
        description: 'The created item: `id` plus the submitted fields and the owner',
        schema: ItemPublic,
      },
    },
    handler: async ({ body, gateway, credentials }) => {
      const data = await gateway.execute(CreateItem, { input: toItemInput(body) }, credentials);
      return { status: 201, body: toItemPublic(data.createItem) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/items/',
    operationId: 'listItems',
    summary: 'List items',
    description: `Needs \`items:read\`; an API key is accepted in place of a bearer token. ${LIST_STYLES_TEXT} Filters: \`name\`, \`price\`, \`owner_id\`, each also as \`field[eq|lt|gt|in]\`.`,
    tags: ['items'],
    security: 'bearer-or-api-key',
    scope: 'items:read',
    query: listParameters(LISTINGS.items),
    listing: true,
    responses: {
      200: { description: 'Items: an array by default, or an envelope', schema: listBodySchema(ItemPublic) },
    },
    handler: async ({ request, gateway, credentials, env, version }) => {
      const listQuery = listQueryOf(request.query, LISTINGS.items, env);
      const data = await gateway.execute(ListItems, { ...toConnectionVariables(listQuery) }, credentials);
      return listResponse(request, version, listQuery, data.items, toItemPublic);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/items/:item_id',
    operationId: 'getItem',
    summary: 'Retrieve an item',
    description:
      'Needs `items:read`; an API key is accepted in place of a bearer token. 400 for an id that is not an integer >= 1.',
    tags: ['items'],
    security: 'bearer-or-api-key',
    scope: 'items:read',
    params: ItemIdParams,
    invalidParamsStatus: 400,
    responses: { 200: { description: 'The item', schema: ItemPublic } },
    versioned: true,
    handler: async ({ params, gateway, credentials, version }) => {
      const data = await gateway.execute(GetItem, { id: String(params.item_id) }, credentials);
      if (!data.item) throw notFound('Item', params.item_id);
      return {
        status: 200,
        body: toItemPublic(data.item),
        headers: { etag: versionTag(data.item.version, version) },
      };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/items/:item_id',
    operationId: 'replaceItem',
    summary: 'Replace an item',
    description: `${WRITE_RULES} Full update: name and price are required, an omitted description becomes null, an omitted owner_id keeps the owner.`,
    tags: ['items'],
    security: 'bearer',
    scope: 'items:write',
    params: ItemIdParams,
    invalidParamsStatus: 400,
    body: ItemReplace,
    responses: { 200: { description: 'The item after the update', schema: ItemPublic } },
    versioned: true,
    handler: async ({ params, body, gateway, credentials, expectedVersion, version }) => {
      const data = await gateway.execute(
        ReplaceItem,
        { id: String(params.item_id), input: toItemInput(body), expectedVersion },
        credentials,
      );
      const item = data.replaceItem;
      return { status: 200, body: toItemPublic(item), headers: { etag: versionTag(item.version, version) } };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/items/:item_id',
    operationId: 'updateItem',
    summary: 'Modify an item',
    description: `${WRITE_RULES} Partial update: only the given fields change.`,
    tags: ['items'],
    security: 'bearer',
    scope: 'items:write',
    params: ItemIdParams,
    invalidParamsStatus: 400,
    body: ItemUpdate,
    responses: { 200: { description: 'The item after the update', schema: ItemPublic } },
    versioned: true,
    handler: async ({ params, body, gateway, credentials, expectedVersion, version }) => {
      const data = await gateway.execute(
        UpdateItem,
        { id: String(params.item_id), input: toItemInput(body), expectedVersion },
        credentials,
      );
      const item = data.updateItem;
      return { status: 200, body: toItemPublic(item), headers: { etag: versionTag(item.version, version) } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/items/:item_id',
    operationId: 'deleteItem',
    summary: 'Delete an item',
    description: `${WRITE_RULES}`,
    tags: ['items'],
    security: 'bearer',
    scope: 'items:write',
    params: ItemIdParams,
    invalidParamsStatus: 400,
    responses: { 204: { description: 'Deleted; empty body' } },
    versioned: true,
    handler: async ({ params, gateway, credentials, expectedVersion }) => {
      await gateway.execute(DeleteItem, { id: String(params.item_id), expectedVersion }, credentials);
      return { status: 204 };
    },
  }),
];
