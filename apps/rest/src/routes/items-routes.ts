/** The items resource: CRUD and listing from the item's declaration, translated into gateway operations on the items subgraph. */
import { items as itemResource } from '@platform/contracts';
import { OPERATIONS } from '../gateway/gateway-client';
import { listRoute } from './resource-listing';
import { idParams, recordRoutes } from './record-routes';

const { CreateItem, DeleteItem, GetItem, ListItems, ReplaceItem, UpdateItem } = OPERATIONS;

const WRITE_RULES =
  'Needs `items:write`. A member may change only items it owns (403 otherwise); an admin any. A missing item is 404 ' +
  '(checked before ownership). `owner_id` may be set only by an admin; anyone else may omit it or give their own id (403 otherwise).';

const items = recordRoutes({
  resource: itemResource,
  tag: 'items',
  path: '/items/:item_id',
  params: idParams({ item_id: 'Item' }, 400),
  invalidParams: 400,
  arguments: { item_id: 'id' },
  writeRules: WRITE_RULES,
});

export const itemsRoutes = [
  items.create({
    path: '/items/',
    operationId: 'createItem',
    summary: 'Create an item',
    description: `${WRITE_RULES} The owner defaults to the caller. Price: 0..1,000,000,000 with at most 2 decimal places.`,
    operation: CreateItem,
  }),
  listRoute({
    path: '/items/',
    operationId: 'listItems',
    summary: 'List items',
    tag: 'items',
    resource: itemResource,
    plural: 'Items',
    operation: ListItems,
    connectionOf: (data) => data.items,
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
    operation: ReplaceItem,
  }),
  items.write('patch', {
    operationId: 'updateItem',
    summary: 'Modify an item',
    description: 'Partial update: only the given fields change.',
    operation: UpdateItem,
  }),
  items.delete({ operationId: 'deleteItem', summary: 'Delete an item', operation: DeleteItem }),
];
