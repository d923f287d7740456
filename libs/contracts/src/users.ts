/** User schemas: UserCreate (registration), UserUpdate (PUT/PATCH), UserPublic (every response; no password). */
import { z } from 'zod';

export const USERNAME_MIN = 3;
export const PASSWORD_MIN = 8;

export const UserCreate = z
  .object({
    username: z
      .string()
      .min(USERNAME_MIN, `must be at least ${USERNAME_MIN} characters`)
      .max(50, 'must be at most 50 characters')
      .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits, "_", "." and "-"'),
    email: z.email('must be a valid e-mail address').max(254, 'must be at most 254 characters'),
    password: z
      .string()
      .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
      .max(128, 'must be at most 128 characters')
      .regex(/\d/, 'must contain at least one digit'),
  })
  .strict()
  .meta({
    id: 'UserCreate',
    description: 'Registration body. The password is stored only as an argon2id hash and never returned.',
    example: { username: 'alice', email: 'alice@example.com', password: 'correct-horse-1' },
  });
export type UserCreateInput = z.infer<typeof UserCreate>;

export const UserUpdate = z
  .object({
    email: z.email('must be a valid e-mail address').max(254).optional(),
    full_name: z.string().max(200, 'must be at most 200 characters').nullable().optional(),
  })
  .strict()
  .meta({
    id: 'UserUpdate',
    description: 'Updatable fields. Any other field (role, is_active, id, password, ...) is rejected with a validation error.',
    example: { email: 'alice@example.org', full_name: 'Alice Liddell' },
  });
export type UserUpdateInput = z.infer<typeof UserUpdate>;

export const UserPublic = z
  .object({
    id: z.number().int().min(1),
    username: z.string(),
    email: z.email(),
    full_name: z.string().nullable(),
    is_active: z.boolean(),
    role: z.enum(['admin', 'member', 'viewer']),
  })
  .meta({
    id: 'User',
    description: 'A user as every response shows it. It never contains the password or its hash.',
    example: { id: 1, username: 'alice', email: 'alice@example.com', full_name: null, is_active: true, role: 'member' },
  });
