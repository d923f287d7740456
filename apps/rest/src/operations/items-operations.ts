/** Fixed GraphQL documents for the items routes; variables carry every value, so the gateway's caches hit. */
import { operation } from '../gateway/gateway-client';

export interface ItemNode {
  id: string;
  name: string;
  description: string | null;
  price: number;
  ownerId: string | null;
  version: number;
}

export interface ItemConnectionData {
  items: {
    nodes: ItemNode[];
    pageInfo: { endCursor: string | null; hasNextPage: boolean };
    totalCount?: number | null;
  };
}

const ITEM_FIELDS = 'id name description price ownerId version';

export const GetItem = operation<{ item: ItemNode | null }>(
  'GetItem',
  `query GetItem($id: ID!) { item(id: $id) { ${ITEM_FIELDS} } }`,
);

export const ListItems = operation<ItemConnectionData>(
  'ListItems',
  `query ListItems($first: Int, $after: String, $offset: Int, $filter: ItemFilter, $sort: [String!], $withTotal: Boolean!) {
  items(first: $first, after: $after, offset: $offset, filter: $filter, sort: $sort) {
    nodes { ${ITEM_FIELDS} }
    pageInfo { endCursor hasNextPage }
    totalCount @include(if: $withTotal)
  }
}`,
);

export const CreateItem = operation<{ createItem: ItemNode }>(
  'CreateItem',
  `mutation CreateItem($input: CreateItemInput!) { createItem(input: $input) { ${ITEM_FIELDS} } }`,
);

export const ReplaceItem = operation<{ replaceItem: ItemNode }>(
  'ReplaceItem',
  `mutation ReplaceItem($id: ID!, $input: ReplaceItemInput!, $expectedVersion: Int) { replaceItem(id: $id, input: $input, expectedVersion: $expectedVersion) { ${ITEM_FIELDS} } }`,
);

export const UpdateItem = operation<{ updateItem: ItemNode }>(
  'UpdateItem',
  `mutation UpdateItem($id: ID!, $input: UpdateItemInput!, $expectedVersion: Int) { updateItem(id: $id, input: $input, expectedVersion: $expectedVersion) { ${ITEM_FIELDS} } }`,
);

export const DeleteItem = operation<{ deleteItem: boolean }>(
  'DeleteItem',
  'mutation DeleteItem($id: ID!, $expectedVersion: Int) { deleteItem(id: $id, expectedVersion: $expectedVersion) }',
);
