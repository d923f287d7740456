/** API key schemas: ApiKeyCreate (POST /api-keys), ApiKeyUpdate (PATCH), ApiKeyCreated (shown once, with the key), ApiKeyPublic (listings; never the key). */
import { z } from 'zod';
import { strictBody } from './strict-body';
import { ALL_SCOPES } from '@platform/auth';
import { text } from './text';
import { ENTITY_ID_MAX } from './entity-id';

/** A user holds at most this many keys; GET /api-keys returns them all in one array. */
export const API_KEYS_PER_USER_MAX = 100;

/** A scope name (docs/interface.md#scopes-and-roles); which ones a caller may grant is the auth subgraph's decision. */
const ScopeName = z.enum(ALL_SCOPES, `must be one of ${ALL_SCOPES.join(', ')}`);

/**
 * Scope names are checked here for being known; which scopes a caller may grant (no wider than its own) is decided by
 * the auth subgraph, which reports any problem on the field `scopes` itself.
 */
const Scopes = z
  .array(ScopeName, 'must be an array of scope names')
  .min(1, 'must name at least one scope')
  .max(ALL_SCOPES.length, `must name at most ${ALL_SCOPES.length} scopes`)
  .describe(`Scopes the key grants, each one the creator holds: ${ALL_SCOPES.join(', ')}`);

const KeyName = text().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').describe('A label for the key');

export const ApiKeyCreate = strictBody('ApiKeyCreate', {
  name: KeyName,
  scopes: Scopes,
}, {
  description: 'A new API key: a label and the scopes it grants (no wider than the creator\'s own).',
  example: { name: 'reporting job', scopes: ['items:read', 'users:read'] },
});
export type ApiKeyCreateInput = z.infer<typeof ApiKeyCreate>;

/** PATCH /api-keys/{id}: only the label changes; a key's scopes are fixed at creation (create a new key instead). */
export const ApiKeyUpdate = strictBody('ApiKeyUpdate', { name: KeyName }, {
  description: 'A new label for the key. Its scopes and secret never change.',
  example: { name: 'nightly reporting job' },
});

const timestamp = z.string().max(32).meta({ format: 'date-time' });
const ApiKeyFields = {
  id: z.number().int().min(1).max(ENTITY_ID_MAX),
  name: z.string().max(100),
  scopes: z.array(ScopeName).max(ALL_SCOPES.length),
  created_at: timestamp.describe('ISO 8601 creation time'),
};

export const ApiKeyCreated = z
  .object({
    ...ApiKeyFields,
    key: z.string().max(200).describe('The secret key. Shown only in this response; it is stored only as a digest.'),
  })
  .meta({
    id: 'ApiKeyCreated',
    description: 'The created key. Keep `key` now: it cannot be shown again.',
    example: { id: 1, name: 'reporting job', scopes: ['items:read'], key: 'ak_3q2F7wJx...', created_at: '2025-01-01T00:00:00.000Z' },
  });

export const ApiKeyPublic = z
  .object({
    ...ApiKeyFields,
    prefix: z.string().max(32).describe('The first characters of the key, to tell keys apart; not enough to use it'),
    last_used_at: timestamp.nullable().describe('When the key last authenticated a request (to within a minute); null if never'),
  })
  .meta({
    id: 'ApiKey',
    description: 'An API key as listings show it: never the key or its digest.',
    example: { id: 1, name: 'reporting job', scopes: ['items:read'], prefix: 'ak_3q2F7w', created_at: '2025-01-01T00:00:00.000Z', last_used_at: null },
  });
