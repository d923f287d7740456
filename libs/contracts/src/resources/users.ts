/**
 * The user: an account's public profile (credentials live in the auth subgraph). Username 3..50 characters and e-mail
 * unique ignoring case; the e-mail and the account's state are personal: they need `users:read` wherever a user is
 * reached (an item's owner, a post's author), or the right to write the account. Listings show `{id, name}` in API
 * version 1 and `{id, name, email}` in version 2; every other answer the whole User. Also the password rule and the
 * reset-password body, an action on the account.
 */
import { z } from 'zod';
import { ROLES } from '@platform/auth';
import { strictBody } from '../strict-body';
import { text as textRule } from '../text';
import { normalizeEmail } from '../identity';
import { boolean, datetime, enumeration, id, resource, text, version, type FieldRead } from './resource';

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 50;
const EMAIL_MAX = 254;
const FULL_NAME_MAX = 200;
export const PASSWORD_MIN = 8;

/** The password rule of registration and of reset-password: 8..128 characters with a digit. */
export const Password = textRule()
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(128, 'must be at most 128 characters')
  .regex(/\d/, 'must contain at least one digit');

/** Personal data: `users:read`, or the right to write this account (itself, or an admin, with `users:write`). */
const PERSONAL: FieldRead = { scope: 'users:read', orWriter: true };

export const users = resource({
  name: 'users',
  type: 'User',
  subgraph: 'users',
  collection: 'users',
  plural: 'users',
  description: "An account's public profile. Credentials live in the auth subgraph and never appear here.",
  scopes: { read: 'users:read', write: 'users:write' },
  owner: 'id',
  listingOrder: ['id', 'username', 'email', 'role', 'isActive'],
  fields: {
    id: id("The user's id (a positive integer, as in the REST paths)."),
    username: text({
      description: '3 to 50 characters; unique ignoring case.',
      input: textRule()
        .min(USERNAME_MIN, `must be at least ${USERNAME_MIN} characters`)
        .max(USERNAME_MAX, `must be at most ${USERNAME_MAX} characters`)
        .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits, "_", "." and "-"'),
      output: z.string().max(USERNAME_MAX),
      write: { create: 'required', docs: { create: '3 to 50 letters, digits, `_`, `.` or `-`; unique ignoring case.' } },
      listed: { description: 'On the username.' },
    }),
    email: text({
      description: 'Unique ignoring case (domain compared lower-cased).',
      input: z.email('must be a valid e-mail address').max(EMAIL_MAX, `must be at most ${EMAIL_MAX} characters`),
      output: z.email().max(EMAIL_MAX),
      // Stored with its domain lower-cased (and compared folded: the repository's unique index).
      toStored: normalizeEmail,
      write: {
        create: 'required',
        replace: 'required',
        update: 'optional',
        docs: {
          create: 'A valid e-mail address; unique ignoring case.',
          update: 'A valid e-mail address; unique ignoring case.',
        },
      },
      read: PERSONAL,
      listed: { description: 'On the e-mail address.' },
    }),
    password: text({
      shown: false,
      stored: null,
      input: Password,
      write: {
        create: 'required',
        docs: {
          create: '8 to 128 characters with at least one digit; stored only as an argon2id hash by the auth subgraph.',
        },
      },
    }),
    fullName: text({
      nullable: true,
      description: 'Display name; null when not given.',
      input: textRule().max(FULL_NAME_MAX, `must be at most ${FULL_NAME_MAX} characters`).nullable(),
      output: z.string().max(FULL_NAME_MAX).nullable(),
      write: {
        replace: 'optional',
        update: 'optional',
        docs: { update: 'Display name, at most 200 characters; null clears it.' },
      },
      read: PERSONAL,
    }),
    isActive: boolean({
      description:
        'False after deactivateUser: the account can neither log in nor refresh tokens, and user(id:) hides it by default.',
      read: PERSONAL,
      listed: { description: 'On whether the account is active.' },
    }),
    role: enumeration('Role', ROLES, {
      description: 'What the account may do; changed only by an operator, never through an update.',
      read: PERSONAL,
      listed: { description: 'On the role (admin, member, viewer).', values: ROLES },
    }),
    createdAt: datetime({ description: 'When the account was registered.', rest: null, read: PERSONAL }),
    updatedAt: datetime({ rest: null, graphql: false }),
    /** Access tokens issued before this instant are refused (set by a password reset); absent: none revoked. */
    tokensValidAfter: datetime({ rest: null, graphql: false, optional: true }),
    /** When an admin last activated the account after a deactivation; its webhooks deliver nothing from before. */
    activeSince: datetime({ rest: null, graphql: false, optional: true }),
    version: { ...version(
      'Write counter: every change to the account adds 1 (the REST ETag); pass it as expectedVersion to change only this version.',
    ), read: PERSONAL },
  },
  inputs: {
    create: 'A new account.',
    update: 'Updatable fields of a user. Role, state, id and password are not updatable here.',
  },
  enums: {
    Role: {
      description: "An account's role: the scopes it grants (values as the REST API and access tokens spell them).",
      values: {
        admin: 'Every scope, on every record.',
        member: 'Every scope; writes only its own user record, items, posts and comments.',
        viewer: 'The :read scopes only.',
      },
    },
  },
  rest: {
    public: {
      id: 'User',
      description: 'A user as every response shows it. It never contains the password or its hash.',
      example: { id: 1, username: 'alice', email: 'alice@example.com', full_name: null, is_active: true, role: 'member' },
    },
    create: {
      id: 'UserCreate',
      description: 'Registration body. The password is stored only as an argon2id hash and never returned.',
      example: { username: 'alice', email: 'alice@example.com', password: 'correct-horse-1' },
    },
    update: {
      id: 'UserUpdate',
      description:
        'Partial update (PATCH): only the fields given change. Any other field (role, is_active, id, password, ...) is rejected with a validation error naming it.',
      example: { full_name: 'Alice Liddell' },
    },
    replace: {
      id: 'UserReplace',
      description:
        'Full update (PUT): replaces every updatable field; `email` is required and an omitted `full_name` becomes null. Any other field (role, is_active, id, password, ...) is rejected with a validation error naming it.',
      example: { email: 'alice@example.org', full_name: 'Alice Liddell' },
    },
  },
  views: {
    // Listings by API version (unversioned paths list the whole User).
    v1: {
      meta: {
        id: 'UserV1',
        description: 'A listed user in API version 1: id and name (the username).',
        example: { id: 1, name: 'alice' },
      },
      fields: { id: 'id', name: 'username' },
    },
    v2: {
      meta: {
        id: 'UserV2',
        description: 'A listed user in API version 2: version 1 plus the e-mail address.',
        example: { id: 1, name: 'alice', email: 'alice@example.com' },
      },
      fields: { id: 'id', name: 'username', email: 'email' },
    },
  },
});

export const ResetPassword = strictBody('ResetPassword', {
  current_password: textRule().min(1, 'must not be empty').max(128, 'must be at most 128 characters').optional(),
  new_password: Password,
}, {
  description:
    'Sets a new password. `current_password` is required when users reset their own password; an admin may omit it for any user. Every refresh token of that user is revoked.',
  example: { current_password: 'correct-horse-1', new_password: 'battery-staple-2' },
});
export type ResetPasswordInput = z.infer<typeof ResetPassword>;
