/** Fixed GraphQL documents for the items routes; variables carry every value, so the gateway's caches hit. */
import { operation } from '../gateway/gateway-client';
import { createOperation, listOperation, versionedDelete, versionedWrite } from './record-operations';

export interface ItemNode {
  id: string;
  name: string;
  description: string | null;
  price: number;
  ownerId: string | null;
  version: number;
}

const ITEM_FIELDS = 'id name description price ownerId version';

export const GetItem = operation<{ item: ItemNode | null }>(
  'GetItem',
  `query GetItem($id: ID!) { item(id: $id) { ${ITEM_FIELDS} } }`,
);

export const ListItems = listOperation<'items', ItemNode>('ListItems', 'items', 'ItemFilter', ITEM_FIELDS);

export const CreateItem = createOperation<ItemNode>('Item', ITEM_FIELDS);
export const ReplaceItem = versionedWrite<ItemNode>('Replace', 'Item', 'ReplaceItemInput', ITEM_FIELDS);
export const UpdateItem = versionedWrite<ItemNode>('Update', 'Item', 'UpdateItemInput', ITEM_FIELDS);
export const DeleteItem = versionedDelete('Item');
