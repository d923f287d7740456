/** The items resource: CRUD and listing, translated into gateway operations on the items subgraph. */
import { ItemCreate, ItemPublic, ItemReplace, ItemUpdate } from '@platform/contracts';
import { LISTINGS } from '@platform/listing';
import { OPERATIONS } from '../gateway/gateway-client';
import { toItemInput, toItemPublic } from './resource-representation';
import { listRoute } from './resource-listing';
import { idParams, recordRoutes } from './record-routes';

const { CreateItem, DeleteItem, GetItem, ListItems, ReplaceItem, UpdateItem } = OPERATIONS;

const WRITE_RULES =
  'Needs `items:write`. A member may change only items it owns (403 otherwise); an admin any. A missing item is 404 ' +
  '(checked before ownership). `owner_id` may be set only by an admin; anyone else may omit it or give their own id (403 otherwise).';

const items = recordRoutes({
  label: 'Item',
  tag: 'items',
  scopes: { read: 'items:read', write: 'items:write' },
  path: '/items/:item_id',
  params: idParams({ item_id: 'Item' }, 400),
  invalidParams: 400,
  variables: (params) => ({ id: String(params.item_id) }),
  idOf: (params) => params.item_id,
  schema: ItemPublic,
  toPublic: toItemPublic,
  writeRules: WRITE_RULES,
});

export const itemsRoutes = [
  items.create({
    path: '/items/',
    operationId: 'createItem',
    summary: 'Create an item',
    description: `${WRITE_RULES} The owner defaults to the caller. Price: 0..1,000,000,000 with at most 2 decimal places.`,
    body: ItemCreate,
    operation: CreateItem,
    input: toItemInput,
  }),
  listRoute({
    path: '/items/',
    operationId: 'listItems',
    summary: 'List items',
    tag: 'items',
    scope: 'items:read',
    filters: 'Filters: `name`, `price`, `owner_id`, each also as `field[eq|lt|gt|in]`.',
    plural: 'Items',
    listing: LISTINGS.items,
    record: ItemPublic,
    operation: ListItems,
    connectionOf: (data) => data.items,
    toPublic: toItemPublic,
  }),
  items.get({
    operationId: 'getItem',
    summary: 'Retrieve an item',
    description: '400 for an id that is not an integer >= 1.',
    operation: GetItem,
  }),
  items.write('put', {
    operationId: 'replaceItem',
    summary: 'Replace an item',
    description:
      'Full update: name and price are required, an omitted description becomes null, an omitted owner_id keeps the owner.',
    body: ItemReplace,
    operation: ReplaceItem,
    input: toItemInput,
  }),
  items.write('patch', {
    operationId: 'updateItem',
    summary: 'Modify an item',
    description: 'Partial update: only the given fields change.',
    body: ItemUpdate,
    operation: UpdateItem,
    input: toItemInput,
  }),
  items.delete({ operationId: 'deleteItem', summary: 'Delete an item', operation: DeleteItem }),
];
