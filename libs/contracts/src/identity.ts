/**
 * Identity comparison (docs/interface.md#text): usernames and e-mail addresses are stored as given,
 * except that an e-mail's domain is lower-cased (domains are case-insensitive), and compared case-folded, so "Admin"
 * and "ADMIN" are the same account name as "admin", and "Ann@Example.com" the same address as "ann@example.com".
 * Both are ASCII by their schemas (UserCreate, z.email), where lower-casing is exact case folding.
 */

/** The form an e-mail address is stored in: the local part as given, the domain lower-cased. */
export function normalizeEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? email : `${email.slice(0, at)}${email.slice(at).toLowerCase()}`;
}

/** The key a username is compared (and uniquely indexed) by. */
export const foldUsername = (username: string): string => username.toLowerCase();

/**
 * The key an e-mail address is compared (and uniquely indexed) by: the whole address folded. RFC 5321 lets a mail
 * server tell local parts apart by case, but none in common use does, and two accounts that differ only so are a
 * mistake or an impersonation far more often than two people.
 */
export const foldEmail = (email: string): string => email.toLowerCase();
