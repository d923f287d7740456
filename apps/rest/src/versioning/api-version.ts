/**
 * API versions (docs/interface.md#versioning): which versions exist, how a version value is parsed, and the headers a
 * response carries. Unversioned requests get the current representation and say `X-API-Version: 2`.
 */
interface VersionInfo {
  semver: string;
  /** When the version was deprecated (announced); it keeps answering until `sunsetAt`. */
  deprecatedAt?: string;
  sunsetAt?: string;
}

export type ApiVersion = 1 | 2;

export const API_VERSIONS: Record<ApiVersion, VersionInfo> = {
  1: { semver: '1.0.0', deprecatedAt: '2026-01-01T00:00:00Z', sunsetAt: '2027-07-01T00:00:00Z' },
  2: { semver: '2.0.0' },
};
export const SUPPORTED_VERSIONS = Object.keys(API_VERSIONS).map(Number) as ApiVersion[];
export const CURRENT_VERSION: ApiVersion = 2;

/** Where the migration note is served; v1 responses link to it. */
export const MIGRATION_NOTE_PATH = '/docs/api-versioning';

export type VersionSource = 'path' | 'header' | 'accept' | 'query' | 'body';

/** The precedence when a request names its version in several places. */
export const VERSION_PRECEDENCE: readonly VersionSource[] = ['path', 'header', 'accept', 'query', 'body'];

/**
 * Every spelling of a version the service accepts: `2`, `v2`, `2.0`, `v2.0`, `2.0.0`, `v2.0.0` (the major, optionally
 * with its minor and patch, optionally prefixed by `v`). A closed set, so the OpenAPI document can list it as an enum
 * and a value outside it (` 2`, `02`, `V2`, `2.1`) is a client error, not a guess.
 */
export const VERSION_SPELLINGS: readonly string[] = SUPPORTED_VERSIONS.flatMap((major) => {
  const [, minor = 0, patch = 0] = API_VERSIONS[major].semver.split('.').map(Number);
  return [`${major}`, `${major}.${minor}`, `${major}.${minor}.${patch}`].flatMap((text) => [text, `v${text}`]);
});
const VERSION_BY_SPELLING = new Map<string, ApiVersion>(
  VERSION_SPELLINGS.map((text) => [text, Number(/^v?(\d+)/.exec(text)![1]) as ApiVersion]),
);

/** `2`, `v2`, `2.0` or `2.0.0` -> 2; anything else is undefined (a client error for the caller). */
export function parseApiVersion(value: unknown): ApiVersion | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
  return text === undefined ? undefined : VERSION_BY_SPELLING.get(text);
}

/** The `version` parameter of an `application/vnd.api+json` media range in an Accept header, if any. */
export function versionFromAccept(accept: string | undefined): string | undefined {
  if (!accept) return undefined;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim());
    if (type.toLowerCase() !== 'application/vnd.api+json') continue;
    for (const param of params) {
      const index = param.indexOf('=');
      if (index > 0 && param.slice(0, index).trim().toLowerCase() === 'version') {
        return param
          .slice(index + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1');
      }
    }
  }
  return undefined;
}

/** Response headers for a served version: always `X-API-Version`; v1 also `Deprecation`, `Sunset` and a `Link`. */
export function versionHeaders(version: ApiVersion): Record<string, string> {
  const headers: Record<string, string> = { 'x-api-version': String(version) };
  const info = API_VERSIONS[version];
  if (info.deprecatedAt) {
    // RFC 9745: the moment of deprecation as a structured-field date.
    headers['deprecation'] = `@${Math.floor(Date.parse(info.deprecatedAt) / 1000)}`;
    headers['link'] =
      `<${MIGRATION_NOTE_PATH}>; rel="deprecation"; type="text/markdown", <${MIGRATION_NOTE_PATH}>; rel="sunset"; type="text/markdown"`;
  }
  // RFC 8594: the HTTP-date after which the version stops answering.
  if (info.sunsetAt) headers['sunset'] = new Date(info.sunsetAt).toUTCString();
  return headers;
}
