/**
 * The names of the generations in Redis (docs/decisions/0019-entity-generations.md): what a subgraph's writes bump and
 * what its readers (the read cache, the credential checks) read before they fetch. Per subgraph:
 *
 * - flush `{rc}f:<subgraph>`: bumped at start-up and by any write that cannot name what it touched (a write by a filter
 *   other than `_id`, an operation the tracking does not know); every reader of the subgraph reads it. Only writers
 *   create it: while it is missing, no writer of the subgraph reaches this Redis and nothing may be cached.
 * - any `{rc}a:<subgraph>`: bumped by every write of the subgraph. Nothing depends on it for long: an answer whose
 *   documents were not known before its fetch is kept under it once, and under its own generations from the next fetch.
 * - collection `{rc}c:<subgraph>:<collection>`: bumped by every write to the collection; a read that is not by `_id`
 *   (a listing, a count, a lookup by another field) depends on it.
 * - entity `{rc}e:<subgraph>:<collection>:<id>`: bumped by every write to that document; a read by `_id` depends on it.
 *
 * The `{rc}` hash tag keeps every generation in one Redis Cluster slot, so one script reads any set of them.
 * `read-cache:generation:<subgraph>` is the key of the previous release (bumped on every write): writers keep bumping
 * it, so readers of that release stay exact during a rolling update, and an answer that names no dependencies (a
 * subgraph of that release) depends on it.
 */

export type GenerationKind = 'flush' | 'legacy' | 'any' | 'collection' | 'entity';

const PREFIX = '{rc}';
const LEGACY_PREFIX = 'read-cache:generation:';

export const flushGeneration = (subgraph: string): string => `${PREFIX}f:${subgraph}`;

export const anyGeneration = (subgraph: string): string => `${PREFIX}a:${subgraph}`;

export const collectionGeneration = (subgraph: string, collection: string): string =>
  `${PREFIX}c:${subgraph}:${collection}`;

export const entityGeneration = (subgraph: string, collection: string, id: string): string =>
  `${PREFIX}e:${subgraph}:${collection}:${id}`;

/** Where accounts live: the users subgraph's `users` collection (apps/users user-repository.ts USERS_COLLECTION). */
export const ACCOUNTS = { subgraph: 'users', collection: 'users' } as const;

/**
 * The generations an account's state (active, role, password version) depends on: the users subgraph's flush one and
 * the account document's. What every check of an account reads: the account behind a token, an API key's owner, a
 * webhook's owner at delivery.
 */
export const accountGenerations = (userId: number): string[] => [
  flushGeneration(ACCOUNTS.subgraph),
  entityGeneration(ACCOUNTS.subgraph, ACCOUNTS.collection, String(userId)),
];

export const legacyGeneration = (subgraph: string): string => `${LEGACY_PREFIX}${subgraph}`;

/**
 * The coarser generations covering `key`: every write that bumps it bumps them too, so a value kept under one of them
 * is safe for `key`, only invalidated more often. An entity's: its collection's and its subgraph's `any`; a
 * collection's: its subgraph's `any`.
 */
export function coveringGenerations(key: string): string[] {
  const kind = generationKind(key);
  if (kind !== 'entity' && kind !== 'collection') return [];
  const rest = key.slice(PREFIX.length + 2);
  const subgraphEnd = rest.indexOf(':');
  if (subgraphEnd < 0) return [];
  const any = `${PREFIX}a:${rest.slice(0, subgraphEnd)}`;
  if (kind === 'collection') return [any];
  const collectionEnd = rest.indexOf(':', subgraphEnd + 1);
  return collectionEnd < 0 ? [any] : [`${PREFIX}c:${rest.slice(0, collectionEnd)}`, any];
}

/** Which level a key is (unknown text counts as legacy: never created by a reader, a missing one means "do not cache"). */
export function generationKind(key: string): GenerationKind {
  if (key.startsWith(PREFIX)) {
    const kind = key.charAt(PREFIX.length);
    if (kind === 'e') return 'entity';
    if (kind === 'c') return 'collection';
    if (kind === 'a') return 'any';
    return 'flush';
  }
  return 'legacy';
}

/** Readers may create entity and collection generations they find missing (at a random start, see redis-generations). */
export const createdByReaders = (kind: GenerationKind): boolean =>
  kind === 'entity' || kind === 'collection' || kind === 'any';

/**
 * The extension of a subgraph's query answer naming what it read: generation keys (the subgraph's flush included), or
 * `none` when it read something no write invalidates (not to be cached). Absent: a subgraph of the previous release.
 */
export const READ_DEPENDENCIES_EXTENSION = 'readDependencies';

export type ReadDependencies = readonly string[] | 'none';

const MAX_REPORTED = 1_000;

/**
 * Takes the dependencies out of a subgraph's answer (the client never sees them): the keys, `none`, or undefined when
 * the answer names none (then only `legacyGeneration(subgraph)` covers it).
 */
export function takeReadDependencies(payload: unknown): ReadDependencies | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const extensions = (payload as { extensions?: Record<string, unknown> }).extensions;
  if (typeof extensions !== 'object' || extensions === null || !(READ_DEPENDENCIES_EXTENSION in extensions))
    return undefined;
  const reported = extensions[READ_DEPENDENCIES_EXTENSION];
  delete extensions[READ_DEPENDENCIES_EXTENSION];
  if (Object.keys(extensions).length === 0) delete (payload as { extensions?: unknown }).extensions;
  if (reported === 'none') return 'none';
  if (!Array.isArray(reported) || reported.length > MAX_REPORTED) return 'none';
  return reported.every((key): key is string => typeof key === 'string' && key.startsWith(PREFIX)) ? reported : 'none';
}
