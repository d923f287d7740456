/** Every fixed operation document the facade sends (the plans warmed at start). */
import type { Operation } from '../gateway/gateway-client';
import * as apiKeys from './api-keys-operations';
import * as auth from './auth-operations';
import * as items from './items-operations';
import * as posts from './posts-operations';
import * as users from './users-operations';

const isOperation = (value: unknown): value is Operation<unknown, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Operation<unknown, unknown>).name === 'string' &&
  typeof (value as Operation<unknown, unknown>).document === 'string';

export const ALL_OPERATIONS: readonly Operation<unknown, unknown>[] = [apiKeys, auth, items, posts, users].flatMap(
  (module) => Object.values(module).filter(isOperation),
);
