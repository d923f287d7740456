/** Every REST route of the facade, in one list: the router and the OpenAPI document are both built from it. */
import type { RouteDefinition } from '../http/route';
import { usersRoutes } from './users-routes';

export const allRoutes: readonly RouteDefinition[] = [...usersRoutes];
