/** The items routes' operations (documents in items.graphql); variables carry every value, so the gateway's caches hit. */
import { operation } from '../gateway/gateway-client';
import {
  CreateItemDocument,
  DeleteItemDocument,
  GetItemDocument,
  ListItemsDocument,
  ReplaceItemDocument,
  UpdateItemDocument,
} from './__generated__/operations';

export type { ItemFieldsFragment } from './__generated__/operations';

export const GetItem = operation(GetItemDocument);
export const ListItems = operation(ListItemsDocument);
export const CreateItem = operation(CreateItemDocument);
export const ReplaceItem = operation(ReplaceItemDocument);
export const UpdateItem = operation(UpdateItemDocument);
export const DeleteItem = operation(DeleteItemDocument);
