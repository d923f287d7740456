/**
 * BOOTSTRAP_ADMIN_*: makes sure that admin exists after start. The auth subgraph may start later than this one,
 * so the credential call is retried with backoff; /readyz stays false until the admin is in place. Its writes go
 * through the subgraph's tracked database, so they bump their generations like any other (ADR 0019).
 */
import type { Logger } from '@platform/logging';
import { AppError } from '@platform/errors';
import type { UserService } from './domain/user-service';

export interface BootstrapAdmin {
  username: string;
  password: string;
  email: string;
}

export function startAdminBootstrap(
  users: UserService,
  admin: BootstrapAdmin,
  logger: Logger,
): { done(): boolean; stop(): void } {
  let finished = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = async (delayMs: number): Promise<void> => {
    if (stopped) return;
    try {
      const user = await users.ensureBootstrapAdmin(admin.username, admin.email, admin.password);
      finished = true;
      logger.info({ userId: user._id, username: user.username }, 'bootstrap admin in place');
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'SERVICE_UNAVAILABLE') {
        // Not a dependency being late: a configuration conflict the operator must resolve.
        logger.error({ err: error instanceof Error ? error.message : 'error' }, 'bootstrap admin failed');
      }
      timer = setTimeout(() => void attempt(Math.min(delayMs * 2, 5_000)), delayMs);
    }
  };
  void attempt(200);
  return {
    done: () => finished,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
