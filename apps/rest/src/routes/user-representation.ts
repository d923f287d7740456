/** GraphQL user -> the REST User representations (snake_case, integer id, never a password), per API version. */
import type { UserFieldsFragment } from '../operations/__generated__/operations';

export const toUserPublic = (user: UserFieldsFragment) => ({
  id: Number(user.id),
  username: user.username,
  email: user.email,
  full_name: user.fullName,
  is_active: user.isActive,
  role: user.role,
});

/** A listed user: v1 `{id, name}`, v2 adds `email`, unversioned paths the full User (CONTRACT.md "Versioning"). */
export function toUserListItem(user: UserFieldsFragment, version: number | undefined) {
  if (version === 1) return { id: Number(user.id), name: user.username };
  if (version === 2) return { id: Number(user.id), name: user.username, email: user.email };
  return toUserPublic(user);
}
