/** The items routes' operations (documents in items.graphql); variables carry every value, so the gateway's caches hit. */
import { GENERATED_OPERATIONS } from './generated-operations';

export type { ItemFieldsFragment } from './__generated__/operations';

export const { GetItem, ListItems, CreateItem, ReplaceItem, UpdateItem, DeleteItem } = GENERATED_OPERATIONS;
