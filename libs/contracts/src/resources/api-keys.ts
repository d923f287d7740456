/**
 * The API key: a label and the scopes it grants, created by a logged-in user with scopes no wider than its own; the
 * key itself is shown once (the created view) and stored only as a digest. Managed with a login token, each user its
 * own keys only (the auth subgraph's rule), so the declaration names no scopes.
 */
import { z } from 'zod';
import { ALL_SCOPES } from '@platform/auth';
import { text as textRule } from '../text';
import { datetime, id, reference, resource, strings, text, version } from './resource';

/** A user holds at most this many keys; GET /api-keys returns them all in one array. */
export const API_KEYS_PER_USER_MAX = 100;

/** One of the scope names; whether the caller may grant it is the auth subgraph's decision. */
const ScopeName = z.enum(ALL_SCOPES, `must be one of ${ALL_SCOPES.join(', ')}`);
const timestamp = z.string().max(32).meta({ format: 'date-time' });
const LABEL = 'A name for people to recognise the key by.';

export const apiKeys = resource({
  name: 'apiKeys',
  type: 'ApiKey',
  label: 'API key',
  subgraph: 'auth',
  collection: 'api_keys',
  plural: 'API keys',
  entity: false,
  description: 'An API key as its owner sees it. The key itself is shown once, by createApiKey, and stored only as a digest.',
  owner: 'userId',
  fields: {
    id: id("The key's id (for revokeApiKey)."),
    userId: reference({ rest: null, graphql: false }),
    name: text({
      description: LABEL,
      input: textRule()
        .trim()
        .min(1, 'must not be empty')
        .max(100, 'must be at most 100 characters')
        .describe('A label for the key'),
      output: z.string().max(100),
      write: { create: 'required', update: 'required' },
    }),
    scopes: strings({
      description: 'The scopes the key grants (each one its creator held).',
      // Known names only here; which ones the caller may grant (no wider than its own) is the auth subgraph's check,
      // reported on the field `scopes` itself.
      input: z
        .array(ScopeName, 'must be an array of scope names')
        .min(1, 'must name at least one scope')
        .max(ALL_SCOPES.length, `must name at most ${ALL_SCOPES.length} scopes`)
        .describe(`Scopes the key grants, each one the creator holds: ${ALL_SCOPES.join(', ')}`),
      output: z.array(ScopeName).max(ALL_SCOPES.length),
      write: { create: 'required', docs: { create: "Scopes the key grants; each must be one the caller's token holds." } },
    }),
    prefix: text({
      description: 'The first characters of the key, to tell keys apart; not enough to use it.',
      output: z
        .string()
        .max(32)
        .describe('The first characters of the key, to tell keys apart; not enough to use it'),
    }),
    key: text({
      shown: false,
      stored: null,
      description: 'The key itself: send it as `X-API-Key`. Shown only here; store it now.',
      output: z.string().max(200).describe('The secret key. Shown only in this response; it is stored only as a digest.'),
    }),
    /** Hex SHA-256 of the key; unique. Never read back. */
    digest: text({ rest: null, graphql: false }),
    createdAt: datetime({ description: 'When the key was created.', output: timestamp.describe('ISO 8601 creation time') }),
    lastUsedAt: datetime({
      nullable: true,
      description: 'When the key last authenticated a request (to within a minute); null if never.',
      output: timestamp
        .nullable()
        .describe('When the key last authenticated a request (to within a minute); null if never'),
    }),
    version: version(
      'Write counter: a rename and a recorded use each add 1 (the REST ETag); pass it as expectedVersion to change only this version.',
    ),
  },
  inputs: { create: 'A new API key.', update: 'A new label for an API key; its scopes and secret never change.' },
  rest: {
    public: {
      id: 'ApiKey',
      description: 'An API key as listings show it: never the key or its digest.',
      example: {
        id: 1,
        name: 'reporting job',
        scopes: ['items:read'],
        prefix: 'ak_3q2F7w',
        created_at: '2025-01-01T00:00:00.000Z',
        last_used_at: null,
      },
    },
    create: {
      id: 'ApiKeyCreate',
      description: "A new API key: a label and the scopes it grants (no wider than the creator's own).",
      example: { name: 'reporting job', scopes: ['items:read', 'users:read'] },
    },
    update: {
      id: 'ApiKeyUpdate',
      description: 'A new label for the key. Its scopes and secret never change.',
      example: { name: 'nightly reporting job' },
    },
  },
  views: {
    created: {
      meta: {
        id: 'ApiKeyCreated',
        description: 'The created key. Keep `key` now: it cannot be shown again.',
        example: {
          id: 1,
          name: 'reporting job',
          scopes: ['items:read'],
          key: 'ak_3q2F7wJx...',
          created_at: '2025-01-01T00:00:00.000Z',
        },
      },
      fields: { id: 'id', name: 'name', scopes: 'scopes', created_at: 'createdAt', key: 'key' },
    },
  },
  graphqlViews: {
    CreatedApiKey: {
      description: 'A newly created key with its secret: the only time the key is ever returned.',
      fields: ['id', 'name', 'scopes', 'prefix', 'createdAt', 'key'],
      docs: { scopes: 'The scopes the key grants.', prefix: 'The first characters of the key, as apiKeys lists it later.' },
    },
  },
});
