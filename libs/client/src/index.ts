/**
 * The typed REST client: openapi-fetch over the types openapi-typescript generated from the facade's /openapi.json
 * (`__generated__/openapi.ts`, checked in; apps/e2e/src/typed-client.e2e.ts regenerates it from the served document
 * and fails on drift). Tagged `type:client`: the project's tests use it, no app or library may import it.
 */
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, paths } from './__generated__/openapi';

export type { components, paths };
export type ApiClient = Client<paths>;
export type Schemas = components['schemas'];

/**
 * A client for the facade at `baseUrl`. List routes document their pagination parameters as one exploded `form`
 * object (`listing`: `pageSize=2&pageToken=...`), which openapi-fetch would otherwise send as `listing[pageSize]=2`.
 */
export function createApiClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): ApiClient {
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    querySerializer: { array: { style: 'form', explode: true }, object: { style: 'form', explode: true } },
    ...options,
  });
}

/** Sends `Authorization: Bearer <token>` on every request (an access token POST /token returned). */
export function bearerAuth(accessToken: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${accessToken}`);
      return request;
    },
  };
}

/**
 * openapi-fetch's body serializer for `application/x-www-form-urlencoded` (POST /token, the OAuth2 form): its default
 * one detects the form by `headers.get instanceof Function`, which fails across realms (jest's sandbox), then sends JSON.
 */
export function formUrlEncoded(body: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) if (value !== undefined && value !== null) form.set(key, String(value));
  return form.toString();
}
