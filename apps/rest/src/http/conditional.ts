/**
 * Conditional requests (RFC 9110 §13; ADR 0012). A versioned resource's strong ETag is `"<version>.<representation>"`:
 * the document's write counter (bumped by every write through a per-version claim in its subgraph) and the API version
 * whose body was served, so a v1 and a v2 body of one record never share a tag. Other single resources get a strong tag
 * of their exact body bytes; listings a weak tag of theirs. `If-None-Match` on GET -> 304; `If-Match` on PUT/PATCH/DELETE
 * becomes the subgraph mutation's `expectedVersion`, so the check and the write are one step there (412 when stale).
 *
 * Under compression (ADR 0027) a strong tag names its content coding (`"3.r2-br"`, `"3.r2-gzip"`): RFC 9110 §8.8.3
 * wants a strong validator to differ between representations of other bytes, and the coded bytes differ from the
 * identity ones. Weak tags (listings) stay as they are: a weak tag may be shared by semantically equivalent
 * representations. Comparisons read a tag without its coding (a tag names a version whatever its coding), so 304 and
 * If-Match work with the tag of any coding a client holds.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import onHeaders from 'on-headers';
import { AppError } from '@platform/errors';
import { CURRENT_VERSION, SUPPORTED_VERSIONS } from '../versioning/api-version';

const representationOf = (apiVersion: number | undefined): string => `r${apiVersion ?? CURRENT_VERSION}`;

/**
 * The strong tag of version `version` of a record, as served in API version `apiVersion`. `derived` names what the body
 * shows besides the record's own fields and what changes without a write to it (a post's like count, `l5`), so the
 * tag still changes with every body; If-Match compares the version only (a like is not an edit of the post).
 */
export const versionTag = (version: number, apiVersion: number | undefined, derived?: string): string =>
  `"${version}.${derived === undefined ? '' : `${derived}.`}${representationOf(apiVersion)}"`;

/** A tag of a body's exact JSON: strong for a single resource, weak (`W/`) for a listing. */
export const bodyTag = (body: unknown, weak: boolean, apiVersion: number | undefined): string => {
  const digest = createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27);
  return `${weak ? 'W/' : ''}"${digest}.${representationOf(apiVersion)}"`;
};

/**
 * The precondition headers this server accepts, as OpenAPI declares them (the document takes these patterns and
 * lengths, so the two cannot drift): entity tags of visible ASCII (the only ones it issues), `If-Match` one tag or `*`
 * (a weak tag, or one it never issued, is well-formed but can never match: 412), `If-None-Match` on a read `*` or a
 * list. Anything else, or longer, is a client error (400), never a precondition that failed.
 */
const ENTITY_TAG = '(?:W/)?"[\\x21\\x23-\\x7e]*"';
export const IF_MATCH_FORM = { pattern: `^(?:\\*|${ENTITY_TAG})$`, maxLength: 80 } as const;
export const IF_NONE_MATCH_FORM = {
  pattern: `^(?:\\*|${ENTITY_TAG}(?:[ \\t]*,[ \\t]*${ENTITY_TAG})*)$`,
  maxLength: 1024,
} as const;
const IF_MATCH = new RegExp(IF_MATCH_FORM.pattern);
const IF_NONE_MATCH = new RegExp(IF_NONE_MATCH_FORM.pattern);

/** A read's `If-None-Match`, checked for form before anything runs: `*` or a list of tags (400 otherwise). */
export function readPrecondition(req: Request): void {
  const header = req.headers['if-none-match']?.trim();
  if (header === undefined || header === '') return;
  if (header.length > IF_NONE_MATCH_FORM.maxLength || !IF_NONE_MATCH.test(header))
    throw new AppError(
      'BAD_REQUEST',
      `If-None-Match: must be \`*\` or entity tags such as "3.r2" separated by commas, at most ${IF_NONE_MATCH_FORM.maxLength} characters`,
    );
}

/** The codings a strong tag may name (what the compression middleware applies); `"3.r2-br"` -> `"3.r2"`. */
const CODING_SUFFIX = /-(?:br|gzip|deflate)"$/;
const withoutCoding = (tag: string): string => tag.replace(CODING_SUFFIX, '"');

/**
 * Installed before the compression middleware, so its header hook runs after compression chose the coding: a strong
 * ETag of a coded answer gets the coding's suffix; a weak one, or an identity answer, is left alone.
 */
export const tagsPerCoding: RequestHandler = (_req, res, next) => {
  onHeaders(res, () => {
    const coding = res.getHeader('content-encoding');
    const etag = res.getHeader('etag');
    if (typeof coding === 'string' && coding !== 'identity' && typeof etag === 'string' && etag.startsWith('"'))
      res.setHeader('etag', `${withoutCoding(etag).slice(0, -1)}-${coding}"`);
  });
  next();
};

/**
 * `If-None-Match` against the response's (identity) tag, by weak comparison (RFC 9110 §13.1.2) and whatever coding
 * the client's tag names (its form was checked before): the tag the 304 answers (the one the client holds, still
 * current), or null for none.
 */
export function notModified(req: Request, etag: string): string | null {
  const header = req.headers['if-none-match']?.trim();
  if (!header) return null;
  if (header === '*') return etag;
  const opaque = (tag: string) => withoutCoding(tag.trim().replace(/^W\//, ''));
  return header.split(',').find((tag) => opaque(tag) === opaque(etag))?.trim() ?? null;
}

/**
 * Only the tags `versionTag` issues: a version, a post's like count, the digest of an answer with `expand` or `fields`,
 * an API version this server serves, and the coding of a compressed answer (every coding of a version is that version).
 */
const VERSION_TAG = new RegExp(
  `^"(\\d{1,15})\\.(?:l\\d{1,15}\\.)?(?:x[\\w-]{22}\\.)?r(?:${SUPPORTED_VERSIONS.join('|')})(?:-(?:br|gzip|deflate))?"$`,
);

/** The expected version no record has: `If-None-Match: *` on a write (412 for an existing record, 404 for none). */
export const NO_VERSION = -1;

/**
 * Reads a write's preconditions into the version it expects (RFC 9110 §13.1): null for none. `If-Match`: a tag this
 * server never issued, or a weak one (If-Match compares strongly), can never match: 412; `*`: no check (the write
 * answers 404 for a missing record). Several tags would need several expected versions in one atomic step; they are
 * refused as a client error. `If-None-Match: *` ("only if there is none") becomes NO_VERSION: a write never creates a
 * record, so it is 412 for an existing one and 404 for a missing one, decided in the same atomic step; other values
 * of If-None-Match on a write ("unless it is at version n") cannot be checked in one step and are a client error.
 */
export function writePrecondition(req: Request, required: boolean): number | null {
  const { ifMatch, onlyIfNone } = preconditionsOf(req);
  // Whatever If-Match says, an existing record fails `*`; a missing one is the write's own 404 (RFC 9110 §13.2.1).
  if (onlyIfNone) return NO_VERSION;
  if (ifMatch === undefined) {
    if (required)
      throw new AppError(
        'PRECONDITION_REQUIRED',
        'If-Match is required: send the ETag of the version you are changing',
      );
    return null;
  }
  if (ifMatch === '*') return null;
  const match = VERSION_TAG.exec(ifMatch);
  if (!match) throw preconditionFailed();
  return Number(match[1]);
}

/**
 * A create's preconditions (RFC 9110 §13.1): its target is the collection, which exists and has no strong tag, so
 * `If-Match` other than `*` and `If-None-Match: *` cannot hold (412).
 */
export function createPrecondition(req: Request): void {
  const { ifMatch, onlyIfNone } = preconditionsOf(req);
  if (onlyIfNone || (ifMatch !== undefined && ifMatch !== '*'))
    throw new AppError(
      'PRECONDITION_FAILED',
      'A create targets its collection, which exists and has no strong tag: send it without If-Match (or with `*`) and without If-None-Match: *',
    );
}

/**
 * A write's precondition headers, checked for form: `If-Match` is `*` or one entity tag (several would need several
 * expected versions in one atomic step), `If-None-Match` only `*` ("unless it is at version n" cannot be checked in
 * one step). Anything else is a client error.
 */
function preconditionsOf(req: Request): { ifMatch: string | undefined; onlyIfNone: boolean } {
  const unlessAny = req.headers['if-none-match']?.trim() || undefined;
  if (unlessAny !== undefined && unlessAny !== '*')
    throw new AppError(
      'BAD_REQUEST',
      'If-None-Match on a write: only `*` (use If-Match to write a known version)',
    );
  const ifMatch = req.headers['if-match']?.trim() || undefined;
  if (ifMatch !== undefined && !IF_MATCH.test(ifMatch)) {
    if (IF_NONE_MATCH.test(ifMatch))
      throw new AppError(
        'BAD_REQUEST',
        'If-Match: give one entity tag (the ETag of the version you are changing)',
      );
    throw new AppError('BAD_REQUEST', 'If-Match: must be `*` or an entity tag such as "3.r2"');
  }
  if (ifMatch !== undefined && ifMatch.length > IF_MATCH_FORM.maxLength)
    throw new AppError(
      'BAD_REQUEST',
      `If-Match: at most ${IF_MATCH_FORM.maxLength} characters (longer than any entity tag this server issues)`,
    );
  return { ifMatch, onlyIfNone: unlessAny === '*' };
}

export const preconditionFailed = () =>
  new AppError('PRECONDITION_FAILED', 'The resource has changed since that ETag; fetch it again and retry');
