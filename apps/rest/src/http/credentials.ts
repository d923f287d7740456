/** Where a caller's credential can be: `Authorization: Bearer`, or an API key in `X-API-Key`, `?api_key=` or cookie `api_key`. */
import type { Request } from 'express';

export function apiKeyFrom(req: Request): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const query = (req.query as Record<string, unknown>)['api_key'];
  if (typeof query === 'string' && query !== '') return query;
  return cookieValue(req.headers.cookie, 'api_key');
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) {
      const raw = part.slice(index + 1).trim();
      try {
        return decodeURIComponent(raw) || undefined;
      } catch {
        return raw || undefined;
      }
    }
  }
  return undefined;
}
