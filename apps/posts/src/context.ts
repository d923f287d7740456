/** Per-request context of the posts subgraph. */
import type { Db } from 'mongodb';
import type { AppError } from '@platform/errors';
import type { Principal } from '@platform/auth';
import type { Logger } from '@platform/logging';

export interface PostsContext {
  principal: Principal | null;
  authError: AppError | null;
  requestId: string;
  logger: Logger;
  db: Db;
}
