/**
 * User schemas: UserCreate (registration), UserUpdate (PATCH), UserReplace (PUT), ResetPassword, UserPublic (every
 * response; no password) and the versioned list representations (v1 `{id, name}`, v2 `{id, name, email}`).
 */
import { z } from 'zod';
import { strictBody } from './strict-body';
import { text } from './text';
import { ENTITY_ID_MAX } from './entity-id';

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 50;
const EMAIL_MAX = 254;
const FULL_NAME_MAX = 200;
const UserId = z.number().int().min(1).max(ENTITY_ID_MAX);
export const PASSWORD_MIN = 8;

/** The password rule of registration and of reset-password: 8..128 characters with a digit. */
export const Password = text()
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(128, 'must be at most 128 characters')
  .regex(/\d/, 'must contain at least one digit');

const Email = z.email('must be a valid e-mail address').max(EMAIL_MAX, `must be at most ${EMAIL_MAX} characters`);
const FullName = text().max(FULL_NAME_MAX, `must be at most ${FULL_NAME_MAX} characters`).nullable();

export const UserCreate = strictBody('UserCreate', {
  username: text()
    .min(USERNAME_MIN, `must be at least ${USERNAME_MIN} characters`)
    .max(USERNAME_MAX, `must be at most ${USERNAME_MAX} characters`)
    .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits, "_", "." and "-"'),
  email: Email,
  password: Password,
}, {
  description: 'Registration body. The password is stored only as an argon2id hash and never returned.',
  example: { username: 'alice', email: 'alice@example.com', password: 'correct-horse-1' },
});
export type UserCreateInput = z.infer<typeof UserCreate>;

export const UserUpdate = strictBody('UserUpdate', {
  email: Email.optional(),
  full_name: FullName.optional(),
}, {
  description:
    'Partial update (PATCH): only the fields given change. Any other field (role, is_active, id, password, ...) is rejected with a validation error naming it.',
  example: { full_name: 'Alice Liddell' },
});
export type UserUpdateInput = z.infer<typeof UserUpdate>;

export const UserReplace = strictBody('UserReplace', {
  email: Email,
  full_name: FullName.optional(),
}, {
  description:
    'Full update (PUT): replaces every updatable field; `email` is required and an omitted `full_name` becomes null. Any other field (role, is_active, id, password, ...) is rejected with a validation error naming it.',
  example: { email: 'alice@example.org', full_name: 'Alice Liddell' },
});
export type UserReplaceInput = z.infer<typeof UserReplace>;

export const ResetPassword = strictBody('ResetPassword', {
  current_password: text().min(1, 'must not be empty').max(128, 'must be at most 128 characters').optional(),
  new_password: Password,
}, {
  description:
    'Sets a new password. `current_password` is required when users reset their own password; an admin may omit it for any user. Every refresh token of that user is revoked.',
  example: { current_password: 'correct-horse-1', new_password: 'battery-staple-2' },
});
export type ResetPasswordInput = z.infer<typeof ResetPassword>;

export const UserPublic = z
  .object({
    id: UserId,
    username: z.string().max(USERNAME_MAX),
    email: z.email().max(EMAIL_MAX),
    full_name: z.string().max(FULL_NAME_MAX).nullable(),
    is_active: z.boolean(),
    role: z.enum(['admin', 'member', 'viewer']),
  })
  .meta({
    id: 'User',
    description: 'A user as every response shows it. It never contains the password or its hash.',
    example: { id: 1, username: 'alice', email: 'alice@example.com', full_name: null, is_active: true, role: 'member' },
  });

export const UserV1 = z
  .object({ id: UserId, name: z.string().max(USERNAME_MAX) })
  .meta({ id: 'UserV1', description: 'A listed user in API version 1: id and name (the username).', example: { id: 1, name: 'alice' } });

export const UserV2 = z
  .object({ id: UserId, name: z.string().max(USERNAME_MAX), email: z.email().max(EMAIL_MAX) })
  .meta({
    id: 'UserV2',
    description: 'A listed user in API version 2: version 1 plus the e-mail address.',
    example: { id: 1, name: 'alice', email: 'alice@example.com' },
  });
