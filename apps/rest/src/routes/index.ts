/** Every REST route of the facade, in one list: the router and the OpenAPI document are both built from it. */
import type { RouteDefinition } from '../http/route';
import { usersRoutes } from './users-routes';
import { authRoutes } from './auth-routes';
import { apiKeysRoutes } from './api-keys-routes';
import { itemsRoutes } from './items-routes';
import { postsRoutes } from './posts-routes';
import { commentsRoutes } from './comments-routes';
import { articlesRoutes } from './articles-routes';
import { eventsRoutes } from './events-routes';

export const allRoutes: readonly RouteDefinition[] = [
  ...usersRoutes,
  ...authRoutes,
  ...apiKeysRoutes,
  ...itemsRoutes,
  ...postsRoutes,
  ...commentsRoutes,
  ...articlesRoutes,
  ...eventsRoutes,
];
