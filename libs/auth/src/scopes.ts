/** Scopes and the roles that grant them (docs/interface.md#scopes-and-roles). */
export const ALL_SCOPES = [
  'users:read',
  'users:write',
  'items:read',
  'items:write',
  'posts:read',
  'posts:write',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

export const READ_SCOPES: readonly Scope[] = ALL_SCOPES.filter((s) => s.endsWith(':read'));

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const isScope = (value: string): value is Scope => (ALL_SCOPES as readonly string[]).includes(value);

/** admin and member hold every scope (member's writes are limited to its own records); viewer reads only. */
export function scopesForRole(role: Role): Scope[] {
  return role === 'viewer' ? [...READ_SCOPES] : [...ALL_SCOPES];
}

/** Splits a space-separated scope request; unknown names are returned separately so callers can reject them. */
export function parseScopeList(raw: string): { scopes: Scope[]; unknown: string[] } {
  const names = raw.split(/\s+/).filter(Boolean);
  return {
    scopes: [...new Set(names.filter(isScope))],
    unknown: names.filter((n) => !isScope(n)),
  };
}
