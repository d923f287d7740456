/** GraphQL user -> the REST User representation (snake_case, integer id, never a password). */
import type { UserNode } from '../operations/users-operations';

export const toUserPublic = (user: UserNode) => ({
  id: Number(user.id),
  username: user.username,
  email: user.email,
  full_name: user.fullName,
  is_active: user.isActive,
  role: user.role,
});
